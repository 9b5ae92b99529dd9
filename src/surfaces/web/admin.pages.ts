// Operators' pages (SPEC §5, §14): issue an expert panel statement or its next version, and verify a
// domain by hand. Admin rights are read from the account on every request (req.webUser), so granting or removing
// them takes effect at once; anyone else gets a 403 page.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { CERTAINTIES, PANEL_VOTES, REOPEN_TRIGGERS, StatementInput, VersionInput } from '../../domain/panels/panel.schema.js';
import * as panels from '../../domain/panels/panel.service.js';
import type { StatementView } from '../../domain/panels/panel.service.js';
import type { PanelEntry } from '../../domain/panels/rules.js';
import * as publishers from '../../domain/publishers/publisher.service.js';
import { DomainError, type ErrorDetail, statusOf } from '../../http/errors.js';
import { itemValidator } from '../../http/validation.js';
import { day, selectField, stackable } from './dashboard.kit.js';
import { html } from './html.js';
import { type FieldErrors, field, notice, pageContext, readForm, Redirect, requireAdmin, sendPage, str } from './kit.js';
import { csrfField } from './layout.js';
import { certaintyLabel } from './views.js';

const validStatement = itemValidator<StatementInput>(StatementInput);
const validVersion = itemValidator<VersionInput>(VersionInput);
const page = { config: { html: true } };

const TRIGGER_LABELS: Record<string, string> = {
  new_study: 'A new study',
  source_corrected: 'A source is corrected',
  alert_extended: 'An alert is extended',
};

/** A statement's content as the form shows it: one panellist per line. */
interface StatementForm {
  id: string;
  version: string;
  topic: string;
  question: string;
  answer: string;
  certainty: string;
  panel: string;
  revisit_by: string;
  reopen_triggers: string[];
}

const panelLine = (p: PanelEntry) => [p.name, p.role, p.vote, p.username ?? ''].join(' | ').replace(/ \| $/, '');

function formOf(s: StatementView): StatementForm {
  const c = s.content;
  return {
    id: s.id,
    version: String(s.current_version + 1),
    topic: c.topic,
    question: c.question,
    answer: c.answer,
    certainty: c.certainty,
    panel: c.panel.map(panelLine).join('\n'),
    revisit_by: c.revisit_by,
    reopen_triggers: c.reopen_triggers,
  };
}

function readStatementForm(form: Record<string, string | string[]>): StatementForm {
  return {
    id: str(form.id).toLowerCase(),
    version: str(form.version),
    topic: str(form.topic),
    question: str(form.question),
    answer: str(form.answer),
    certainty: str(form.certainty),
    panel: typeof form.panel === 'string' ? form.panel : '',
    revisit_by: str(form.revisit_by),
    reopen_triggers: [form.reopen_triggers ?? []].flat(),
  };
}

/**
 * The API's body from the form. The vote is counted from the panellists' own votes: the API insists the two agree,
 * and a form that asks for both only invites a mismatch.
 */
function bodyOf(f: StatementForm) {
  const panel = f.panel
    .split(/\r?\n/)
    .filter((l) => l.trim() !== '')
    .map((line) => {
      const [name = '', role = '', vote = '', username = ''] = line.split('|').map((s) => s.trim());
      return { name, role, vote: vote.toLowerCase(), ...(username ? { username: username.replace(/^@/, '').toLowerCase() } : {}) };
    });
  return {
    topic: f.topic,
    question: f.question,
    answer: f.answer,
    certainty: f.certainty,
    vote: { agree: panel.filter((p) => p.vote === 'agree').length, dissent: panel.filter((p) => p.vote === 'dissent').length },
    panel,
    revisit_by: f.revisit_by,
    reopen_triggers: f.reopen_triggers,
  };
}

/** Problems next to their fields; a panellist's problem names its line. */
function statementErrors(details: ErrorDetail[] | undefined, message: string): FieldErrors {
  const out: FieldErrors = {};
  for (const d of details ?? []) {
    const [head = '(body)', index, ...rest] = d.field.split('.');
    const key = head === 'vote' ? 'panel' : head;
    const text =
      head === 'panel' && index !== undefined && /^[0-9]+$/.test(index) ? `line ${Number(index) + 1}: ${rest.join('.') || 'entry'} ${d.message}` : d.message;
    out[key] = out[key] ? `${out[key]}; ${text}` : text;
  }
  // A problem of the whole statement (it repeats the current version) reads best as the service put it.
  if (Object.keys(out).length === 0 || out['(body)']) out.form = message;
  return out;
}

export function adminPages(app: FastifyInstance, deps: Deps) {
  // ---------------------------------------------------------------------------------------------------------------
  // The start: verify a domain by hand, and the statements.

  const adminHome = async (req: FastifyRequest, reply: FastifyReply, values: Record<string, string> = {}, errors: FieldErrors = {}, status = 200) => {
    requireAdmin(req);
    const ctx = pageContext(deps, req, reply);
    const { items, total } = await panels.listStatements(deps, { page: 1, perPage: 100 });
    const body = html`${notice(req, { 'domain-verified': 'The domain is verified for that publication.' })}
<h1>Operations</h1>
<div class="split">
<section class="card" aria-labelledby="verify-domain"><h2 id="verify-domain" class="card-title">Verify a domain by hand</h2>
<p class="muted">When a publisher cannot publish the DNS record or the file, and you have checked their control another way. A domain verified by another publication moves to this one.</p>
<form method="post" action="/admin/domains/verify" class="stack" novalidate>${csrfField(ctx)}
${field({ name: 'publisher', label: 'Publication', value: values.publisher, error: errors.publisher, required: true, hint: 'Its short name (slug)' })}
${field({ name: 'domain', label: 'Domain', value: values.domain, error: errors.domain, required: true, hint: 'e.g. example.com' })}
<div><button type="submit">Verify domain</button></div></form></section>
<section class="card" aria-labelledby="panels-new"><h2 id="panels-new" class="card-title">Expert panel statements</h2>
<p class="muted">A statement answers one question on a topic. Each version is immutable; issuing the next one supersedes it and tells the publishers of that topic.</p>
<p><a class="button" href="/admin/panels/new">Issue a new statement</a></p></section>
</div>
<h2>Statements (${total})</h2>
${
  items.length === 0
    ? html`<p class="muted">No statements yet.</p>`
    : stackable(html`<div class="table-wrap"><table><thead><tr><th scope="col">Statement</th><th scope="col">Topic</th><th scope="col">Version</th><th scope="col">Issued</th></tr></thead><tbody>
${items.map(
  (s) => html`<tr><td><a href="/admin/panels/${s.id}">${s.content.question}</a><br><span class="muted small">${s.id}</span></td><td>${s.content.topic}</td><td>${s.current_version}</td><td>${day(s.issued_at)}</td></tr>`,
)}
</tbody></table></div>`)
}`;
    return sendPage(deps, req, reply, { title: 'Operations', body, noindex: true }, status);
  };

  app.get('/admin', page, async (req, reply) => adminHome(req, reply));

  app.post('/admin/domains/verify', page, async (req, reply) => {
    requireAdmin(req);
    const form = readForm(deps, req);
    const values = { publisher: str(form.publisher).toLowerCase(), domain: str(form.domain) };
    const errors: FieldErrors = {};
    if (values.publisher === '') errors.publisher = 'is required';
    if (values.domain === '') errors.domain = 'is required';
    if (Object.keys(errors).length > 0) return adminHome(req, reply, values, errors, 400);
    try {
      await publishers.verifyDomainByOperator(deps, values.publisher.slice(0, 100), values.domain.slice(0, 253));
    } catch (err) {
      if (err instanceof DomainError && statusOf(err) === 404) return adminHome(req, reply, values, { publisher: `No publication is called ${values.publisher}` }, 404);
      if (err instanceof DomainError && statusOf(err) < 500) return adminHome(req, reply, values, { domain: err.details?.[0]?.message ?? err.message }, statusOf(err));
      throw err;
    }
    throw new Redirect('/admin?done=domain-verified');
  });

  // ---------------------------------------------------------------------------------------------------------------
  // Statements: a new one, and the next version of one (the form starts from the current version).

  const statementForm = (ctx: ReturnType<typeof pageContext>, action: string, f: StatementForm, errors: FieldErrors, isNew: boolean) =>
    html`<form method="post" action="${action}" class="stack wide" novalidate>${csrfField(ctx)}
${errors.form ? html`<p class="notice error" role="alert">${errors.form}</p>` : ''}
${isNew ? field({ name: 'id', label: 'Statement id', value: f.id, error: errors.id, required: true, hint: 'Lower-case letters, digits and hyphens, e.g. vitamin-d-respiratory-infections' }) : html`<input type="hidden" name="version" value="${f.version}">`}
${field({ name: 'topic', label: 'Topic', value: f.topic, error: errors.topic, required: true, hint: 'Publishers with pages on this topic are told of each version' })}
${field({ name: 'question', label: 'Question', textarea: true, value: f.question, error: errors.question, required: true })}
${field({ name: 'answer', label: 'Answer', textarea: true, value: f.answer, error: errors.answer, required: true })}
${selectField({ name: 'certainty', label: 'Certainty', value: f.certainty || 'moderate', error: errors.certainty, options: CERTAINTIES.map((c) => ({ value: c, label: certaintyLabel(c) })) })}
${field({ name: 'panel', label: 'Panel', textarea: true, value: f.panel, error: errors.panel, required: true, hint: `One panellist per line: name | role | vote (${PANEL_VOTES.join(', ')}) | username if they have an account. The vote is counted from these lines.` })}
${field({ name: 'revisit_by', label: 'Revisit by', type: 'date', value: f.revisit_by, error: errors.revisit_by, required: true })}
<fieldset class="checks"${errors.reopen_triggers ? html` aria-describedby="f-reopen_triggers-error"` : ''}><legend>Reopen when</legend>${REOPEN_TRIGGERS.map(
      (t) =>
        html`<label><input type="checkbox" name="reopen_triggers" value="${t}"${f.reopen_triggers.includes(t) ? html` checked` : ''}> ${TRIGGER_LABELS[t] ?? t}</label>`,
    )}${errors.reopen_triggers ? html`<p class="field-error" id="f-reopen_triggers-error">${errors.reopen_triggers}</p>` : ''}</fieldset>
<div><button type="submit">${isNew ? 'Issue version 1' : `Issue version ${f.version}`}</button></div></form>`;

  const newPage = (req: FastifyRequest, reply: FastifyReply, f?: StatementForm, errors: FieldErrors = {}, status = 200) => {
    requireAdmin(req);
    const ctx = pageContext(deps, req, reply);
    const blank: StatementForm = { id: '', version: '', topic: '', question: '', answer: '', certainty: 'moderate', panel: '', revisit_by: '', reopen_triggers: [] };
    const body = html`<p class="crumbs"><a href="/admin">Operations</a> /</p><h1>Issue a new statement</h1>
${statementForm(ctx, '/admin/panels', f ?? blank, errors, true)}`;
    return sendPage(deps, req, reply, { title: 'New statement', body, noindex: true }, status);
  };

  app.get('/admin/panels/new', page, async (req, reply) => newPage(req, reply));

  app.post('/admin/panels', page, async (req, reply) => {
    requireAdmin(req);
    const f = readStatementForm(readForm(deps, req));
    const checked = validStatement({ id: f.id, ...bodyOf(f) });
    if (!checked.ok) return newPage(req, reply, f, statementErrors(checked.error.details, checked.error.message), 400);
    let created: StatementView;
    try {
      created = await panels.createStatement(deps, checked.value);
    } catch (err) {
      if (err instanceof DomainError && statusOf(err) === 409) return newPage(req, reply, f, { id: err.message }, 409);
      if (err instanceof DomainError && statusOf(err) < 500) return newPage(req, reply, f, statementErrors(err.details, err.message), statusOf(err));
      throw err;
    }
    throw new Redirect(`/admin/panels/${created.id}?done=issued`);
  });

  const statementPage = async (req: FastifyRequest, reply: FastifyReply, f?: StatementForm, errors: FieldErrors = {}, status = 200) => {
    requireAdmin(req);
    const ctx = pageContext(deps, req, reply);
    const s = await panels.getStatement(deps, (req.params as { id: string }).id);
    const c = s.content;
    // After a refusal because someone else issued a version, the admin's text stays, aimed at the version after theirs.
    const form = f && status === 409 ? { ...f, version: String(s.current_version + 1) } : f;
    const body = html`${notice(req, { issued: `Version ${s.version} is issued and public.` })}
<p class="crumbs"><a href="/admin">Operations</a> /</p>
<h1>${c.question}</h1>
<p><span class="badge ok">version ${s.version}, current</span> <span class="muted">issued ${day(s.issued_at)} · <a href="/panels/${s.id}">public page</a></span></p>
<dl class="facts"><dt>Id</dt><dd><code>${s.id}</code></dd><dt>Topic</dt><dd>${c.topic}</dd><dt>Answer</dt><dd class="prewrap">${c.answer}</dd><dt>Certainty</dt><dd>${certaintyLabel(c.certainty)}</dd>
<dt>Vote</dt><dd>${c.vote.agree} agree, ${c.vote.dissent} dissent</dd><dt>Revisit by</dt><dd>${c.revisit_by}</dd></dl>
<h2>Issue version ${s.current_version + 1}</h2>
<p class="muted">The form starts from version ${s.current_version}. If someone issues a version meanwhile, yours is refused rather than overwriting theirs.</p>
${statementForm(ctx, `/admin/panels/${s.id}/versions`, form ?? formOf(s), errors, false)}`;
    return sendPage(deps, req, reply, { title: c.question, body, noindex: true }, status);
  };

  app.get('/admin/panels/:id', page, async (req, reply) => statementPage(req, reply));

  app.post('/admin/panels/:id/versions', page, async (req, reply) => {
    requireAdmin(req);
    const f = readStatementForm(readForm(deps, req));
    const version = /^[0-9]{1,10}$/.test(f.version) ? Number(f.version) : undefined;
    const checked = validVersion({ ...bodyOf(f), ...(version !== undefined ? { version } : {}) });
    if (!checked.ok) return statementPage(req, reply, f, statementErrors(checked.error.details, checked.error.message), 400);
    let issued: StatementView;
    try {
      issued = await panels.issueVersion(deps, (req.params as { id: string }).id, checked.value);
    } catch (err) {
      if (err instanceof DomainError && statusOf(err) === 409) return statementPage(req, reply, f, { form: err.message }, 409);
      if (err instanceof DomainError && statusOf(err) === 400) return statementPage(req, reply, f, statementErrors(err.details, err.message), 400);
      throw err;
    }
    throw new Redirect(`/admin/panels/${issued.id}?done=issued`);
  });
}
