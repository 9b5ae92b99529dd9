// Reports and decisions as pages (docs/trust-and-safety.md): the public report form, a decision's statement of
// reasons and its appeal, the terms and the transparency counts; for operators the queue, a report with its item in
// context, deciding (a second step before anything is withheld), appeals (another operator) and trusted flaggers.
// The domain answers codes (categories, types, grounds); the words for them are here.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { localeOf } from '../../domain/mail/mail.kinds.js';
import * as moderation from '../../domain/moderation/moderation.service.js';
import { CATEGORIES, type Category, DECISION_TYPES, GROUNDS, parseItemRef, periodBounds } from '../../domain/moderation/rules.js';
import { transparencyCounts } from '../../domain/moderation/transparency.js';
import { categoryWords } from '../../domain/moderation/withheld-text.js';
import { DomainError, statusOf } from '../../http/errors.js';
import { selectField } from './dashboard.kit.js';
import { html } from './html.js';
import { confirmChoice, type FieldErrors, field, notice, pageContext, readForm, Redirect, requireAdmin, requireUser, sendPage, str } from './kit.js';
import { csrfField } from './layout.js';

const page = { config: { html: true } };

const TYPE_WORDS: Record<string, string> = {
  no_action: 'No action',
  restrict_field: 'The text is restricted',
  remove_item: 'The item is removed from the record',
  suspend_account: 'The account is suspended',
  restore: 'Appeal granted: the text is restored',
  upheld: 'Appeal refused: the decision stands',
};
const GROUND_WORDS: Record<string, string> = { illegal: 'Illegal under the law', incompatible: 'Against Credence’s terms' };
const SOURCE_WORDS: Record<string, string> = { anonymous: 'Anonymous', account: 'An account', trusted_flagger: 'Trusted flagger' };
const ITEM_WORDS: Record<string, string> = { contribution: 'Contribution', notice: 'Notice', profile: 'Profile', page: 'Page', panel: 'Panel statement' };

/** The clauses of the terms a decision can cite, by their anchor on /terms. */
export const TERMS_CLAUSES: { id: string; title: string; text: string }[] = [
  { id: 't1', title: '1. Lawful content', text: 'What you write on Credence must be lawful where it is read: no defamation, no threats, no incitement.' },
  { id: 't2', title: '2. Other people’s data', text: 'Do not publish another person’s private data: home addresses, phone numbers, health, or anything that identifies someone who is not a public figure acting in public.' },
  { id: 't3', title: '3. Other people’s work', text: 'Quote only what you need to make your point; do not paste articles or other works whole.' },
  { id: 't4', title: '4. Honest work', text: 'Fact checks, corrections and reviews state what the sources say; do not invent sources or misstate them.' },
  { id: 't5', title: '5. No harassment', text: 'Do not use reviews, reports or notices to target a person or a publication.' },
  { id: 't6', title: '6. Reports in good faith', text: 'Send reports only in good faith. Reports found manifestly unfounded bring a warning, then a suspension from reporting for 30 days.' },
];

const categoryOptions = CATEGORIES.map((c) => ({ value: c, label: categoryWords(c).replace(/^./, (x) => x.toUpperCase()) }));

export function moderationPages(app: FastifyInstance, deps: Deps) {
  // ---------------------------------------------------------------------------------------------------------------
  // The report form: anyone, with or without an account.

  const reportForm = (req: FastifyRequest, reply: FastifyReply, values: Record<string, string>, errors: FieldErrors = {}, status = 200) => {
    const ctx = pageContext(deps, req, reply);
    const body = html`<h1>Report</h1>
<p>Tell us about text on Credence that is unlawful or against our <a href="/terms">terms</a>. An operator reads every report; you get a reference now and the decision with its reasons later, if you give an address.</p>
${errors.form ? html`<p class="notice error" role="alert">${errors.form}</p>` : ''}
<form method="post" action="/report" class="stack wide" novalidate>${csrfField(ctx)}
${field({ name: 'item', label: 'What you report', value: values.item, error: errors.item, required: true, hint: 'Filled in from the Report link, e.g. contribution:12:summary' })}
${selectField({ name: 'category', label: 'Why', value: values.category || 'STATEMENT_CATEGORY_ILLEGAL_OR_HARMFUL_SPEECH', error: errors.category, options: categoryOptions })}
${field({ name: 'explanation', label: 'Explanation', textarea: true, value: values.explanation, error: errors.explanation, required: true, hint: 'Why the text is unlawful or against the terms: the law or the clause, and what in the text' })}
${field({ name: 'notifier_name', label: 'Your name (optional)', value: values.notifier_name, error: errors.notifier_name, autocomplete: 'name' })}
${field({ name: 'notifier_email', label: 'Your email (optional)', type: 'email', value: values.notifier_email, error: errors.notifier_email, autocomplete: 'email', hint: 'For the acknowledgement and the decision. Without it you get a reference on the next page only.' })}
<fieldset class="checks"${errors.good_faith ? html` aria-describedby="f-good_faith-error"` : ''}><legend>Statement</legend><label><input type="checkbox" name="good_faith" value="yes"${values.good_faith ? html` checked` : ''}> I state in good faith that this report is accurate and complete.</label>${
      errors.good_faith ? html`<p class="field-error" id="f-good_faith-error">${errors.good_faith}</p>` : ''
    }</fieldset>
<div><button type="submit">Send the report</button></div></form>`;
    return sendPage(deps, req, reply, { title: 'Report', body, noindex: true }, status);
  };

  app.get('/report', page, async (req, reply) => reportForm(req, reply, { item: str((req.query as Record<string, string>).item) }));

  app.post('/report', page, async (req, reply) => {
    const form = readForm(deps, req);
    const values = {
      item: str(form.item),
      category: str(form.category),
      explanation: str(form.explanation).slice(0, 5000),
      notifier_name: str(form.notifier_name).slice(0, 200),
      notifier_email: str(form.notifier_email).slice(0, 254),
      good_faith: str(form.good_faith),
    };
    const item = parseItemRef(values.item);
    if (!item) return reportForm(req, reply, values, { item: 'name what you report as kind:id:field; the Report link fills it in' }, 400);
    if (!(CATEGORIES as readonly string[]).includes(values.category)) return reportForm(req, reply, values, { category: 'choose one of the reasons' }, 400);
    const accountId = req.webUser?.accountId ?? null;
    try {
      const r = await moderation.submitReport(
        deps,
        { item, category: values.category as Category, explanation: values.explanation, notifier_name: values.notifier_name, notifier_email: values.notifier_email, good_faith: values.good_faith === 'yes', locale: localeOf(req.headers['accept-language']) },
        accountId,
      );
      throw new Redirect(`/report/sent?reference=${encodeURIComponent(r.reference)}`);
    } catch (err) {
      if (err instanceof DomainError && statusOf(err) < 500) {
        const f = err.details?.[0]?.field ?? 'form';
        return reportForm(req, reply, values, { [f === 'notifier' ? 'form' : f]: err.details?.[0]?.message ?? err.message }, statusOf(err));
      }
      throw err;
    }
  });

  app.get('/report/sent', page, async (req, reply) => {
    const reference = str((req.query as Record<string, string>).reference).slice(0, 20);
    const body = html`<h1>Report received</h1><p class="notice" role="status">Your reference is <strong>${reference}</strong>. An operator will decide on your report.</p><p><a href="/terms">Our terms</a> · <a href="/transparency">Transparency</a></p>`;
    return sendPage(deps, req, reply, { title: 'Report received', body, noindex: true });
  });

  // ---------------------------------------------------------------------------------------------------------------
  // A decision's public statement of reasons, and the appeal.

  const decisionBody = (d: Awaited<ReturnType<typeof moderation.publicDecision>>) =>
    html`<dl class="facts wrap">
<dt>Decision</dt><dd>${TYPE_WORDS[d.type] ?? d.type}</dd>
<dt>What</dt><dd>${ITEM_WORDS[d.item.kind] ?? d.item.kind} ${d.item.id}${d.item.field ? html`, its ${d.item.field.replace(/_/g, ' ')}` : ''}</dd>
<dt>Category</dt><dd>${categoryWords(d.category)}</dd>
<dt>Ground</dt><dd>${GROUND_WORDS[d.ground] ?? d.ground}${d.legal_reference ? html`: ${d.legal_reference}` : ''}${d.terms_clause ? html`: <a href="${deps.config.termsUrl}#${d.terms_clause}">clause ${d.terms_clause.replace(/^t/, '')}</a>` : ''}</dd>
<dt>Facts</dt><dd>${d.facts}</dd>
<dt>Automated</dt><dd>${d.automated ? 'Yes' : 'No: an operator decided'}</dd>
<dt>Decided</dt><dd><time datetime="${d.decided_at}">${d.decided_at.slice(0, 10)}</time></dd>
${d.appeal_of ? html`<dt>Appeal of</dt><dd><a href="/decisions/${d.appeal_of}">decision ${d.appeal_of}</a></dd>` : html`<dt>Redress</dt><dd>The person whose text it was, and the notifier, can appeal until ${d.appeal_until?.slice(0, 10) ?? '—'}; another operator decides. You may also go to an out-of-court dispute settlement body or to a court.</dd>`}
${d.log_seq !== null ? html`<dt>In the log</dt><dd><a href="/log/${d.log_seq - 1}">entry ${d.log_seq - 1}</a></dd>` : ''}
</dl>`;

  app.get('/decisions/:id', page, async (req, reply) => {
    const id = Number((req.params as { id: string }).id);
    if (!Number.isSafeInteger(id)) throw new DomainError('not_found', 'Decision not found');
    const d = await moderation.publicDecision(deps, id);
    const mayAppeal = req.webUser ? await moderation.canAppeal(deps, req.webUser.accountId, id) : false;
    const body = html`${notice(req, { appealed: 'Your appeal is received; another operator will decide on it.' })}<h1>Decision ${d.id}: statement of reasons</h1>${decisionBody(d)}
${mayAppeal ? html`<p><a class="button" href="/decisions/${d.id}/appeal">Appeal this decision</a></p>` : ''}`;
    return sendPage(deps, req, reply, { title: `Decision ${d.id}`, body });
  });

  const appealForm = async (req: FastifyRequest, reply: FastifyReply, id: number, values: Record<string, string> = {}, errors: FieldErrors = {}, status = 200, token = '') => {
    const ctx = pageContext(deps, req, reply);
    const d = await moderation.publicDecision(deps, id);
    const body = html`<p class="crumbs"><a href="/decisions/${id}">Decision ${id}</a> /</p><h1>Appeal decision ${id}</h1>
${errors.form ? html`<p class="notice error" role="alert">${errors.form}</p>` : ''}
${decisionBody(d)}
<form method="post" action="/decisions/${id}/appeal" class="stack wide" novalidate>${csrfField(ctx)}${token ? html`<input type="hidden" name="token" value="${token}">` : ''}
${field({ name: 'explanation', label: 'Why the decision should change', textarea: true, value: values.explanation, error: errors.explanation, required: true })}
<div><button type="submit">Send the appeal</button></div></form>`;
    return sendPage(deps, req, reply, { title: `Appeal decision ${id}`, body, noindex: true }, status);
  };

  // A notifier without an account comes with the single-use link of their statement's mail (`?token=`); everyone
  // else appeals signed in.
  const linkToken = (v: string | string[] | undefined) => str(v).slice(0, 100);
  const noLink = () => new DomainError('forbidden', 'This appeal link is used, expired or for another decision; the statement’s mail had the only one');

  app.get('/decisions/:id/appeal', page, async (req, reply) => {
    const id = Number((req.params as { id: string }).id) || 0;
    const token = linkToken((req.query as Record<string, string>).token);
    if (token) {
      if (!(await moderation.appealLinkIsLive(deps, id, token))) throw noLink();
      return appealForm(req, reply, id, {}, {}, 200, token);
    }
    requireUser(req);
    return appealForm(req, reply, id);
  });

  app.post('/decisions/:id/appeal', page, async (req, reply) => {
    const id = Number((req.params as { id: string }).id) || 0;
    const form = readForm(deps, req);
    const token = linkToken(form.token);
    const user = token ? null : requireUser(req);
    const values = { explanation: str(form.explanation).slice(0, 5000) };
    try {
      if (user) await moderation.appeal(deps, user.accountId, id, values.explanation);
      else await moderation.appealByLink(deps, id, token, values.explanation);
    } catch (err) {
      if (err instanceof DomainError && statusOf(err) < 500 && statusOf(err) !== 404) {
        return appealForm(req, reply, id, values, { [err.details?.[0]?.field === 'explanation' ? 'explanation' : 'form']: err.details?.[0]?.message ?? err.message }, statusOf(err), token);
      }
      throw err;
    }
    throw new Redirect(`/decisions/${id}?done=appealed`);
  });

  // ---------------------------------------------------------------------------------------------------------------
  // The terms and the counts.

  app.get('/terms', page, async (req, reply) => {
    const body = html`<h1>Terms</h1><p>These are the clauses a decision on a report can cite, each at its own address (<code>/terms#t1</code>). Contact point for authorities and users: <a href="mailto:${deps.config.contactEmail}">${deps.config.contactEmail}</a>.</p>
${TERMS_CLAUSES.map((c) => html`<section id="${c.id}"><h2>${c.title}</h2><p>${c.text}</p></section>`)}
<p><a href="/transparency">Transparency: reports and decisions, counted from the log</a></p>`;
    return sendPage(deps, req, reply, { title: 'Terms', body });
  });

  app.get('/transparency', page, async (req, reply) => {
    const now = new Date(deps.clock.now());
    const current = `${now.getUTCFullYear()}-H${now.getUTCMonth() < 6 ? 1 : 2}`;
    const asked = str((req.query as Record<string, string>).period);
    const period = periodBounds(asked) ? asked : current;
    const c = await transparencyCounts(deps, period);
    const rows = (o: Record<string, number>, words: (k: string) => string) =>
      Object.keys(o).length === 0 ? html`<tr><td colspan="2" class="muted">None</td></tr>` : Object.entries(o).map(([k, n]) => html`<tr><th scope="row">${words(k)}</th><td>${n}</td></tr>`);
    const table = (caption: string, o: Record<string, number>, words: (k: string) => string) =>
      html`<div class="table-wrap"><table><caption>${caption}</caption><tbody>${rows(o, words)}</tbody></table></div>`;
    const body = html`<h1>Transparency, ${period}</h1>
<p>Counted from the change log’s decision entries: anyone can recount them with <code>credence log:verify --transparency</code>. As JSON: <a href="/v1/transparency?period=${period}">/v1/transparency?period=${period}</a>.</p>
<p>${c.reports.total} reports decided, ${c.decisions.total} decisions, median time to decide ${c.median_seconds_to_decide === null ? '—' : `${Math.round(c.median_seconds_to_decide / 3600)} h`}; ${c.appeals.decided} appeals decided, ${c.appeals.reversed} reversed; ${c.notifiers_suspended} notifiers suspended for misuse.</p>
${table('Reports by category', c.reports.by_category, categoryWords)}
${table('Reports by source', c.reports.by_source, (k) => SOURCE_WORDS[k] ?? k)}
${table('Decisions by type', c.decisions.by_type, (k) => TYPE_WORDS[k] ?? k)}
${table('Decisions by ground', c.decisions.by_ground, (k) => GROUND_WORDS[k] ?? k)}`;
    return sendPage(deps, req, reply, { title: 'Transparency', body });
  });

  // ---------------------------------------------------------------------------------------------------------------
  // Operators: the queue, a report, deciding in two steps, appeals, trusted flaggers.

  app.get('/admin/reports', page, async (req, reply) => {
    requireAdmin(req);
    const ctx = pageContext(deps, req, reply);
    const [open, appeals, flaggers] = await Promise.all([moderation.queue(deps), moderation.openAppeals(deps), moderation.trustedFlaggers(deps)]);
    const body = html`${notice(req, { decided: 'The decision is taken and its statement sent.', flagger: 'The trusted flaggers are updated.' })}
<p class="crumbs"><a href="/admin">Operations</a> /</p><h1>Reports</h1>
<h2>Open reports (${open.length})</h2>
${open.length === 0 ? html`<p class="muted">No open reports.</p>` : html`<div class="table-wrap"><table><thead><tr><th scope="col">Reference</th><th scope="col">Item</th><th scope="col">Category</th><th scope="col">Source</th><th scope="col">Received</th></tr></thead><tbody>
${open.map((r) => html`<tr><td><a href="/admin/reports/${r.id}">${r.reference}</a></td><td>${r.item_kind}:${r.item_id}${r.field ? `:${r.field}` : ''}</td><td>${categoryWords(r.category)}</td><td>${SOURCE_WORDS[r.source] ?? r.source}</td><td>${r.created_at.slice(0, 16).replace('T', ' ')}</td></tr>`)}
</tbody></table></div>`}
<h2>Appeals waiting (${appeals.length})</h2>
${appeals.length === 0 ? html`<p class="muted">No appeals waiting.</p>` : html`<ul>${appeals.map((a) => html`<li><a href="/admin/appeals/${a.id}">Appeal ${a.id}</a> of decision ${a.decision_id}, ${a.created_at.slice(0, 10)}</li>`)}</ul>`}
<h2>Trusted flaggers</h2>
${flaggers.length === 0 ? html`<p class="muted">None yet.</p>` : html`<ul>${flaggers.map((f) => html`<li>@${f.username}: ${f.organisation}</li>`)}</ul>`}
<form method="post" action="/admin/trusted-flaggers" class="stack" novalidate>${csrfField(ctx)}
${field({ name: 'username', label: 'Account', required: true, hint: 'The username of the flagger’s account' })}
${field({ name: 'organisation', label: 'Organisation', required: true, hint: 'As the Digital Services Coordinator awarded the status' })}
<div><button type="submit">Mark as trusted flagger</button></div></form>`;
    return sendPage(deps, req, reply, { title: 'Reports', body, noindex: true });
  });

  app.post('/admin/trusted-flaggers', page, async (req, _reply) => {
    const admin = requireAdmin(req);
    const form = readForm(deps, req);
    await moderation.markTrustedFlagger(deps, admin.accountId, str(form.username).slice(0, 40), str(form.organisation).slice(0, 200));
    throw new Redirect('/admin/reports?done=flagger');
  });

  const reportPage = async (req: FastifyRequest, reply: FastifyReply, id: number, values: Record<string, string> = {}, errors: FieldErrors = {}, status = 200, confirming = false) => {
    requireAdmin(req);
    const ctx = pageContext(deps, req, reply);
    const r = await moderation.reportDetail(deps, id);
    const fields = r.item?.fields ?? {};
    // data-asks-again: a restriction's first post answers with the step that says what it does (confirm=yes below).
    const decideForm = html`<form method="post" action="/admin/reports/${id}/decide" class="stack wide" novalidate data-asks-again>${csrfField(ctx)}
${errors.form ? html`<p class="notice error" role="alert">${errors.form}</p>` : ''}
${selectField({ name: 'type', label: 'Decision', value: values.type || 'restrict_field', error: errors.type, options: DECISION_TYPES.map((t) => ({ value: t, label: TYPE_WORDS[t]! })) })}
${selectField({ name: 'category', label: 'Category', value: values.category || r.report.category, error: errors.category, options: categoryOptions })}
${selectField({ name: 'ground', label: 'Ground', value: values.ground || 'illegal', error: errors.ground, options: GROUNDS.map((g) => ({ value: g, label: GROUND_WORDS[g]! })) })}
${field({ name: 'legal_reference', label: 'Law relied on', value: values.legal_reference, error: errors.legal_reference, hint: 'When the ground is the law, e.g. Loi du 29 juillet 1881, art. 29 (diffamation)' })}
${selectField({ name: 'terms_clause', label: 'Terms clause', value: values.terms_clause || '', error: errors.terms_clause, options: [{ value: '', label: 'None' }, ...TERMS_CLAUSES.map((c) => ({ value: c.id, label: c.title }))] })}
${field({ name: 'facts', label: 'Facts and circumstances', textarea: true, value: values.facts, error: errors.facts, required: true, hint: 'Sent to the person affected and the notifier, and published with the decision: never quote the text itself' })}
<fieldset class="checks"><legend>Misuse</legend><label><input type="checkbox" name="unfounded" value="yes"${values.unfounded ? html` checked` : ''}> With no action: the report is manifestly unfounded (warns the notifier, then suspends them)</label></fieldset>
${
  confirming
    ? html`<p class="notice" role="alert">This withholds the text at once, everywhere it shows, and sends the statement of reasons. Confirm to go ahead.</p><input type="hidden" name="confirm" value="yes"><div><button type="submit" class="danger">Confirm the decision</button></div>`
    : html`<div><button type="submit">Decide</button></div>`
}</form>`;
    const body = html`<p class="crumbs"><a href="/admin/reports">Reports</a> /</p><h1>Report ${r.report.reference}</h1>
<dl class="facts wrap">
<dt>Item</dt><dd>${ITEM_WORDS[r.ref.kind] ?? r.ref.kind} ${r.ref.id}${r.ref.field ? `, its ${r.ref.field.replace(/_/g, ' ')}` : ''}${r.item?.pageUrl ? html` on <a href="${r.item.pageUrl}">${r.item.pageUrl}</a>` : ''}</dd>
<dt>Category</dt><dd>${categoryWords(r.report.category)}</dd>
<dt>Explanation</dt><dd>${r.report.explanation}</dd>
<dt>Notifier</dt><dd>${SOURCE_WORDS[r.report.source] ?? r.report.source}${r.report.notifier_name ? `: ${r.report.notifier_name}` : ''}${r.report.notifier_email ? ` <${r.report.notifier_email}>` : ''}${r.notifier.trustedFlagger ? ` (trusted flagger for ${r.notifier.trustedFlagger})` : ''}; ${r.notifier.reports} reports, ${r.notifier.unfounded} found manifestly unfounded${r.notifier.standing?.suspended_until ? `, suspended until ${r.notifier.standing.suspended_until.slice(0, 10)}` : r.notifier.standing?.warned_at ? ', warned' : ''}</dd>
<dt>Received</dt><dd>${r.report.created_at.slice(0, 16).replace('T', ' ')}</dd>
</dl>
<h2>The item in context</h2>
${r.item ? html`<dl class="facts wrap">${Object.entries(fields).map(([k, v]) => html`<dt>${k.replace(/_/g, ' ')}${k === r.ref.field ? ' (reported)' : ''}</dt><dd>${v ?? '—'}</dd>`)}</dl>` : html`<p class="muted">The item is gone.</p>`}
<h2>Earlier reports and decisions on it</h2>
${r.earlierReports.length + r.decisions.length === 0 ? html`<p class="muted">None.</p>` : html`<ul>${r.earlierReports.map((e) => html`<li>Report ${e.reference}, ${categoryWords(e.category)}, ${e.status}</li>`)}${r.decisions.map((d) => html`<li><a href="/decisions/${d.id}">Decision ${d.id}</a>: ${TYPE_WORDS[d.type] ?? d.type}, ${d.decided_at.slice(0, 10)}</li>`)}</ul>`}
${r.report.status === 'open' ? html`<h2>Decide</h2>${decideForm}` : html`<p>Decided: <a href="/decisions/${r.report.decision_id}">decision ${r.report.decision_id}</a>.</p>`}`;
    return sendPage(deps, req, reply, { title: `Report ${r.report.reference}`, body, noindex: true }, status);
  };

  app.get('/admin/reports/:id', page, async (req, reply) => reportPage(req, reply, Number((req.params as { id: string }).id) || 0));

  app.post('/admin/reports/:id/decide', page, async (req, reply) => {
    const admin = requireAdmin(req);
    const id = Number((req.params as { id: string }).id) || 0;
    const form = readForm(deps, req);
    const values = {
      type: str(form.type),
      category: str(form.category),
      ground: str(form.ground),
      legal_reference: str(form.legal_reference).slice(0, 500),
      terms_clause: str(form.terms_clause).slice(0, 20),
      facts: str(form.facts).slice(0, 5000),
      unfounded: str(form.unfounded),
    };
    const errors: FieldErrors = {};
    if (!(DECISION_TYPES as readonly string[]).includes(values.type)) errors.type = 'choose a decision';
    if (!(GROUNDS as readonly string[]).includes(values.ground)) errors.ground = 'choose a ground';
    if (!(CATEGORIES as readonly string[]).includes(values.category)) errors.category = 'choose a category';
    if (Object.keys(errors).length > 0) return reportPage(req, reply, id, values, errors, 400);
    // Anything but no action withholds or suspends at once: the form asks once more before it does.
    if (values.type !== 'no_action' && str(form.confirm) !== 'yes') return reportPage(req, reply, id, values, {}, 200, true);
    try {
      await moderation.decideReport(deps, admin.accountId, id, {
        type: values.type as (typeof DECISION_TYPES)[number],
        ground: values.ground as (typeof GROUNDS)[number],
        legal_reference: values.legal_reference,
        terms_clause: values.terms_clause,
        facts: values.facts,
        category: values.category as Category,
        unfounded: values.unfounded === 'yes',
      });
    } catch (err) {
      if (err instanceof DomainError && statusOf(err) < 500 && statusOf(err) !== 404) {
        const f = err.details?.[0]?.field;
        return reportPage(req, reply, id, values, { [f && f in values ? f : 'form']: err.details?.[0]?.message ?? err.message }, statusOf(err));
      }
      throw err;
    }
    throw new Redirect('/admin/reports?done=decided');
  });

  const appealPage = async (req: FastifyRequest, reply: FastifyReply, id: number, values: Record<string, string> = {}, errors: FieldErrors = {}, status = 200) => {
    requireAdmin(req);
    const ctx = pageContext(deps, req, reply);
    const a = await moderation.appealDetail(deps, id);
    const d = await moderation.publicDecision(deps, a.decision.id);
    const body = html`<p class="crumbs"><a href="/admin/reports">Reports</a> /</p><h1>Appeal ${id} of decision ${a.decision.id}</h1>
${errors.form ? html`<p class="notice error" role="alert">${errors.form}</p>` : ''}
${decisionBody(d)}
<h2>The appeal</h2><p class="text">${a.appeal.explanation}</p>
${a.appeal.decided_at ? html`<p>Decided: ${a.appeal.outcome}.</p>` : html`<form method="post" action="/admin/appeals/${id}/decide" class="stack wide" novalidate>${csrfField(ctx)}
${selectField({ name: 'outcome', label: 'Outcome', value: values.outcome || 'reversed', error: errors.outcome, options: [{ value: 'reversed', label: 'Grant: restore the text' }, { value: 'upheld', label: 'Refuse: the decision stands' }] })}
${field({ name: 'facts', label: 'Reasons', textarea: true, value: values.facts, error: errors.facts, required: true })}
<div>${confirmChoice({ label: 'Decide the appeal', name: 'confirm', value: 'yes', consequence: 'The person who appealed and the notifier are told the outcome with your reasons. An appeal is decided once: it cannot be reopened from here.', confirm: 'Decide the appeal for good' })}</div></form>`}`;
    return sendPage(deps, req, reply, { title: `Appeal ${id}`, body, noindex: true }, status);
  };

  app.get('/admin/appeals/:id', page, async (req, reply) => appealPage(req, reply, Number((req.params as { id: string }).id) || 0));

  app.post('/admin/appeals/:id/decide', page, async (req, reply) => {
    const admin = requireAdmin(req);
    const id = Number((req.params as { id: string }).id) || 0;
    const form = readForm(deps, req);
    const values = { outcome: str(form.outcome), facts: str(form.facts).slice(0, 5000) };
    if (values.outcome !== 'reversed' && values.outcome !== 'upheld') return appealPage(req, reply, id, values, { outcome: 'choose an outcome' }, 400);
    try {
      await moderation.decideAppeal(deps, admin.accountId, id, { outcome: values.outcome, facts: values.facts });
    } catch (err) {
      if (err instanceof DomainError && statusOf(err) < 500 && statusOf(err) !== 404) {
        return appealPage(req, reply, id, values, err.details?.[0]?.field === 'facts' ? { facts: err.details[0].message } : { form: err.message }, statusOf(err));
      }
      throw err;
    }
    throw new Redirect('/admin/reports?done=decided');
  });
}
