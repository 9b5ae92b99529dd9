// The inbox: work submitted on the publication's pages, with its evidence (the change as a diff, the reason, the
// sources), and accept or reject with a note. Deciding goes through the same service as the API's decide call.
import type { Interest } from '../../domain/interests/interest.service.js';
import { interestLine } from './record.pages.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import type { SubmissionRow } from '../../domain/submissions/submission.store.js';
import * as submissions from '../../domain/submissions/submission.service.js';
import { verdictOf } from '../../domain/submissions/verdicts.js';
import { type DomainError, statusOf } from '../../http/errors.js';
import { itemValidator } from '../../http/validation.js';
import { DecisionItem } from '../integration-v1/submissions.routes.js';
import { idParam, KIND_LABELS, pageNumber, pager, type Publication, publicationOf, query, sendDashboard, statusBadge, when } from './dashboard.kit.js';
import { renderDiff } from './diff.js';
import { html } from './html.js';
import { confirmChoice, notice, pageContext, readForm, Redirect, str } from './kit.js';
import { csrfField, type PageContext } from './layout.js';
import { SUBMISSION_STATUSES } from '../../domain/vocabulary.js';

const validDecision = itemValidator<{ submission_id: number; decision: 'accept' | 'reject'; note?: string }>(DecisionItem);

const STATUSES = SUBMISSION_STATUSES;
type Status = (typeof STATUSES)[number];
const PER_PAGE = 20;
const page = { config: { html: true } };

function card(ctx: PageContext, pub: Publication, s: SubmissionRow & { interests: Interest[] }, failure?: DomainError) {
  const sources = submissions.storedSources(s.sources);
  const kind = KIND_LABELS[s.kind] ?? s.kind;
  const own = s.account_id === pub.user.accountId;
  const hasChange = s.before_text !== null || s.after_text !== null;
  // A fact check is decided on what it says: the claim and its verdict, as the public proof page will show them.
  const verdict = verdictOf(s.verdict);
  return html`<article class="card submission" aria-labelledby="sub-${s.id}">
<h3 id="sub-${s.id}" class="card-title">${kind} on <a href="${pub.base}/pages/${s.page_id}">${s.page_title || s.page_url}</a> ${statusBadge(s.status)}</h3>
<p class="muted small">By <a href="/contributors/${s.username}">${s.name}</a> · submitted ${when(s.created_at)}${s.request_id !== null ? ` · answers request #${s.request_id}` : ' · unasked'}</p>
${
  s.interests.length > 0
    ? html`<div class="notice warn" role="note"><p><strong>${s.name} declared ${s.interests.length === 1 ? 'an interest' : 'interests'}:</strong></p><ul>${s.interests.map((i) => html`<li>${interestLine(i)}</li>`)}</ul></div>`
    : ''
}
<p class="summary">${s.summary}</p>
${
  hasChange
    ? html`<h4>The change</h4><p class="hint" id="diff-legend-${s.id}">Removed words are <del>struck through</del>; added words are <ins>underlined</ins>.</p><p class="diff" aria-describedby="diff-legend-${s.id}">${renderDiff(s.before_text ?? '', s.after_text ?? '')}</p>
<details><summary>Before and after in full</summary><h5>Before</h5><p class="diff">${s.before_text ?? ''}</p><h5>After</h5><p class="diff">${s.after_text ?? ''}</p></details>`
    : ''
}
${s.quote_exact ? html`<h4>The passage</h4><blockquote class="prewrap">${s.quote_exact}</blockquote>` : ''}
${
  verdict || s.claim
    ? html`<h4>The claim</h4><p class="prewrap">${s.claim ?? ''}</p>${
        verdict ? html`<p>Verdict: <strong class="verdict">${verdict.label}</strong> <span class="muted">(${verdict.value} on a scale from 1, false, to 5, true)</span></p>` : ''
      }`
    : ''
}
<h4>Why</h4><p class="prewrap">${s.reason}</p>
<h4>Sources</h4>${
    sources.length === 0
      ? html`<p class="muted">None given.</p>`
      : html`<ul>${sources.map((u) => html`<li><a class="wrap" href="${u}" rel="nofollow ugc noopener noreferrer">${u}</a></li>`)}</ul>`
  }
${failure ? html`<p class="notice error" role="alert">${failure.message}</p>` : ''}
${
  s.status === 'pending'
    ? own
      ? html`<p class="muted">This is your own work: another member of ${pub.name} decides it.</p>`
      : html`<form method="post" action="${pub.base}/inbox/${s.id}/decide" class="stack decide">${csrfField(ctx)}
<div><label for="note-${s.id}">Note to ${s.name} <span class="hint" id="note-${s.id}-hint">Optional; shown with the decision</span></label>
<textarea id="note-${s.id}" name="note" aria-describedby="note-${s.id}-hint"></textarea></div>
<div class="actions">${confirmChoice({
          label: 'Accept',
          name: 'decision',
          value: 'accept',
          consequence: `The work goes on the public record and into the signed public log, credited to ${s.name}. A decision cannot be changed afterwards.`,
          confirm: 'Accept for good',
        })}${confirmChoice({
          label: 'Reject',
          name: 'decision',
          value: 'reject',
          danger: true,
          consequence: `${s.name} is told (with your note, if you write one), and the rejection counts in their record${s.request_id !== null ? `; request ${s.request_id} opens again for others to take` : ''}. A decision cannot be changed afterwards.`,
          confirm: 'Reject for good',
        })}</div></form>`
    : html`<p class="muted">${s.status === 'withdrawn' ? 'Withdrawn by the contributor' : `Decided`} ${when(s.decided_at ?? s.updated_at)}${s.decision_note ? html`: “${s.decision_note}”` : ''}${
        s.status === 'accepted' ? html` · <a href="/records/${s.page_id}">On the public record</a>` : ''
      }</p>`
}
</article>`;
}

export function inboxPages(app: FastifyInstance, deps: Deps) {
  const inboxPage = async (req: FastifyRequest, reply: FastifyReply, pub: Publication, failed?: { id: number; error: DomainError }, status = 200) => {
    const ctx = pageContext(deps, req, reply);
    const asked = query(req, 'status');
    const filter: Status | undefined = asked === 'all' ? undefined : (STATUSES as readonly string[]).includes(asked) ? (asked as Status) : 'pending';
    const n = pageNumber(req);
    const { rows, total } = await submissions.listInbox(deps, [pub.id], filter, n, PER_PAGE);
    // A refused decision shows on its submission even when that one has since left the filtered list.
    if (failed && !rows.some((r) => r.id === failed.id)) {
      const more = await submissions.listInbox(deps, [pub.id], undefined, 1, 100);
      const row = more.rows.find((r) => r.id === failed.id);
      if (row) rows.unshift(row);
    }
    const filters = [...STATUSES, 'all' as const].map(
      (s) => html`<a href="${pub.base}/inbox?status=${s}"${(filter ?? 'all') === s ? html` aria-current="page"` : ''}>${s[0]!.toUpperCase()}${s.slice(1)}</a>`,
    );
    const proof = Number(query(req, 'proof'));
    const done = query(req, 'done');
    const body = html`${
      done === 'accepted'
        ? html`<p class="notice" role="status">Accepted: the work is on the public record now${Number.isSafeInteger(proof) && proof > 0 ? html` (<a href="/proofs/${proof}">see its proof</a>)` : ''}.</p>`
        : notice(req, { rejected: 'Rejected: the contributor sees your note.' })
    }
<h2>Inbox</h2>
<p class="lede">Work specialists submitted on your pages. Accepting puts it on the public record and the embed; rejecting sends it back with your note.</p>
<nav class="filters" aria-label="Filter the inbox">${filters}</nav>
${
  rows.length === 0
    ? html`<p class="muted">${filter === 'pending' ? 'Nothing waiting for a decision.' : 'Nothing here.'}</p>`
    : html`${rows.map((s) => card(ctx, pub, s, failed?.id === s.id ? failed.error : undefined))}${pager(`${pub.base}/inbox`, n, PER_PAGE, total, `&status=${filter ?? 'all'}`)}`
}`;
    return sendDashboard(deps, req, reply, pub, 'inbox', { title: 'Inbox', body }, status);
  };

  app.get('/dashboard/:slug/inbox', page, async (req, reply) => inboxPage(req, reply, await publicationOf(deps, req)));

  app.post('/dashboard/:slug/inbox/:id/decide', page, async (req, reply) => {
    const pub = await publicationOf(deps, req);
    const form = readForm(deps, req);
    const id = idParam(req, 'id', 'Submission');
    const note = str(form.note);
    const checked = validDecision({ submission_id: id, decision: str(form.decision), ...(note ? { note } : {}) });
    if (!checked.ok) return inboxPage(req, reply, pub, { id, error: checked.error }, 400);
    const [result] = await submissions.decide(deps, pub.user.accountId, [pub.id], [{ index: 0, ok: true, value: checked.value }]);
    if (result!.error) {
      // Work on another publication's pages is a 404 page, as if it did not exist.
      if (statusOf(result!.error) === 404) throw result!.error;
      return inboxPage(req, reply, pub, { id, error: result!.error }, statusOf(result!.error));
    }
    throw new Redirect(
      checked.value.decision === 'accept' ? `${pub.base}/inbox?done=accepted&proof=${result!.contributionId ?? ''}` : `${pub.base}/inbox?done=rejected`,
    );
  });
}
