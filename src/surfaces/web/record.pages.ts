// The HTML of a page's trust record and of one contribution's proof (SPEC §12): what people see at record_url and
// proof_url. The routes (records.routes.ts) answer JSON to API clients at the same addresses.
import { FORMER_CONTRIBUTOR } from '../../domain/accounts/rules.js';
import type { getProof } from '../../domain/contributors/contributor.service.js';
import type { PageRecord } from '../../domain/pages/record.js';
import { verdictOf } from '../../domain/submissions/verdicts.js';
import { driftOf } from '../linked-data/drift.presenter.js';
import { recordJsonLd } from '../linked-data/schema-org.js';
import { logEntryUrl, logProofUrl, proofUrl, recordUrl } from '../urls.js';
import { renderDiff } from './diff.js';
import { html } from './html.js';
import type { PageOptions } from './layout.js';
import { date, empty, externalLink, levelBadge, percent, personLd, personLink, publisherLink, role, roleLabel } from './views.js';
import { storedSources } from '../../domain/submissions/submission.service.js';
import { standingNotice } from '../../domain/pages/notices.js';
import { wordsFor } from '../embed/i18n.js';

// The pages speak English; the words of notices and standings are the embed's English ones, one vocabulary.
const words = wordsFor('en');

/** A page not in good standing says so first: the standing, the notice that set it, its link. */
function standingSection(record: PageRecord) {
  if (record.standing === 'current') return '';
  const s = words.standings[record.standing];
  const n = standingNotice(record.notices);
  return html`<div class="notice error" role="note"><p><strong>${s.label}.</strong> ${s.sentence}${n ? html` ${date(n.notice_date)}.` : ''}</p>${
    n ? html`<p>${n.reason}${n.notice_url ? html` ${externalLink(n.notice_url, words.readNotice)}` : ''}</p>${logLink(n)}` : ''
  }<p class="small">The work below stays on the record as it was accepted.</p></div>`;
}

const logLink = (n: PageRecord['notices'][number]) =>
  n.log_seq === null ? '' : html`<p class="meta"><a href="${logEntryUrl('', Number(n.log_seq) - 1)}">Log entry ${String(Number(n.log_seq) - 1)}</a></p>`;

/** Every notice, newest first, but the one the standing above already says: a notice is said once. */
function noticesSection(record: PageRecord) {
  const said = record.standing === 'current' ? undefined : standingNotice(record.notices);
  const others = record.notices.filter((n) => n !== said);
  if (others.length === 0) return '';
  return html`<h2>${said ? 'Earlier notices' : 'Notices'}</h2>
<ol class="work">${others.map(
    (n) => html`<li class="card"><p class="who"><span class="badge ${n.type === 'reinstatement' || n.type === 'clarification' || n.type === 'addendum' ? '' : 'bad'}">${words.notices[n.type]}</span> ${date(n.notice_date)}</p>
<p>${n.reason}</p>${n.notice_url ? html`<p>${externalLink(n.notice_url, words.readNotice)}</p>` : ''}${logLink(n)}</li>`,
  )}</ol>`;
}

type Proof = Awaited<ReturnType<typeof getProof>>;

const verifiedBadge = (verified: boolean) =>
  verified
    ? html`<span class="badge ok" title="The page's site is a verified domain of its publisher">✓ Verified site</span>`
    : html`<span class="badge warn" title="The publisher's verification of this site has lapsed">Unverified site</span>`;

/** `pendingClaims`: author claims on the page waiting for the named person, counted, never named. */
export function recordPage(siteUrl: string, record: PageRecord, pendingClaims = 0): PageOptions {
  const { page, contributions } = record;
  const title = page.title || page.url;
  const people = new Set(contributions.map((c) => c.account_id)).size;
  // The last change counts notices too: a retraction is the page's newest change.
  const latest = [...contributions.map((c) => c.accepted_at), ...record.notices.map((n) => n.created_at)].reduce((m, at) => (at > m ? at : m), '');
  // Newest first: a reader wants the latest correction before the original byline.
  const entries = [...contributions].reverse();
  const snippet = `<script async src="${siteUrl}/embed.js" data-page="${page.url}"></script>`;
  return {
    title: `Trust record: ${title}`,
    description: `Who wrote, reviewed, fact-checked and corrected “${title}”, with the evidence.`,
    structured: recordJsonLd(siteUrl, record),
    body: html`<p class="crumbs">${publisherLink({ slug: page.publisher_slug, name: page.publisher_name })}${page.topic ? html` · <a href="/requests?topic=${encodeURIComponent(page.topic)}">${page.topic}</a>` : ''}</p>
<h1>${title}</h1>
<p class="page-url">${externalLink(page.url)}</p>
<p>${verifiedBadge(record.verified)}</p>
${standingSection(record)}
<ul class="stats">
<li><strong>${contributions.length}</strong> accepted ${contributions.length === 1 ? 'contribution' : 'contributions'}</li>
<li><strong>${people}</strong> ${people === 1 ? 'person' : 'people'}</li>
<li><strong>${latest ? date(latest) : '—'}</strong> last change</li>
</ul>
${pendingClaims > 0 ? html`<p class="muted" data-pending-claims>${pendingClaims === 1 ? '1 author claim' : `${pendingClaims} author claims`} waiting for confirmation: a named author appears here once they confirm.</p>` : ''}
${noticesSection(record)}
<h2>Who worked on this page</h2>
${
  entries.length === 0
    ? empty('No accepted work on this page yet.', html`<a href="/requests">See what publishers are asking for</a>.`)
    : html`<ol class="work">${entries.map(
        (c) => html`<li class="card">
<p class="who">${role(c.role)} ${personLink(c)} ${
      // An erased person's work names nobody: no level or trust, which would read as a verdict on someone.
      c.username === FORMER_CONTRIBUTOR.username ? '' : html`${levelBadge(c.level)} <span class="muted">trust ${percent(c.trust_score)}</span>`
    }</p>
${c.summary ? html`<p>${c.summary}</p>` : ''}
${c.role === 'correction' && c.change_from !== null && c.change_to !== null ? html`<p class="diff">${renderDiff(c.change_from, c.change_to)}</p>` : ''}
<p class="meta">${c.role === 'author' ? html`Named by ${page.publisher_name}, ${c.consent === 'standing_permission' ? 'published by their standing permission' : 'confirmed by them'}` : 'Accepted'} ${date(c.accepted_at)} · <a href="/proofs/${c.id}">Proof<span class="sr-only"> of the ${roleLabel(c.role).toLowerCase()} by ${c.name || c.username}</span></a> · <a href="/report?item=contribution:${c.id}:summary">Report<span class="sr-only"> the ${roleLabel(c.role).toLowerCase()} by ${c.name || c.username}</span></a></p>
</li>`,
      )}</ol>`
}
<details class="card"><summary>Show this record on the page itself</summary>
<p>Publishers add one line to the article; it shows the accepted work above and updates by itself.</p>
<pre><code>${snippet}</code></pre></details>`,
  };
}

/** An entry of the transparency log as a page shows it: its bytes, and the openings served beside them. */
export interface ShownEntry {
  body: string;
  openings: unknown;
  /** What a decision withheld in it (JSON Pointer → decision id), and the leaf hash when `body` is not its bytes. */
  withheld?: Record<string, number>;
  leafHash?: string | null;
}

/**
 * A transparency-log entry, checked by /assets/log-verify.js in the reader's browser against the published key. The
 * entry's bytes are shown behind a disclosure, and the check starts from them (it compares them with the entry bundle
 * the signed root vouches for, so the page's word is not taken). `contributionId`: the entry must be about this
 * contribution. Without JavaScript the links remain, for checking elsewhere (docs/transparency.md).
 */
export function logSection(index: number, contributionId: number | null, entry: ShownEntry | null, what = 'This acceptance') {
  return html`<section class="card log" id="log" aria-labelledby="log-heading" data-log-index="${String(index)}"${
    contributionId === null ? '' : html` data-log-contribution="${String(contributionId)}"`
  } data-log-api="/v1/log">
<h2 id="log-heading">In the public transparency log</h2>
<p>${what} is entry <strong>${String(index)}</strong> of Credence’s append-only log of public changes. Anyone can check that it was not changed or removed since: the log’s checkpoints are signed, and the proof below ties this entry to them.</p>
<p role="status" aria-live="polite" data-log-status>Your browser checks this proof when JavaScript is on; it is not checked yet.</p>
<p class="hint wrap">The check runs here, in your browser, with the log’s published key: it does not take this page’s word for it. <span data-log-details></span></p>
${
  entry
    ? html`<details><summary>The entry’s bytes, as the log holds them</summary>
<p class="hint">Canonical JSON. People’s names and the text people wrote appear as salted commitments; their openings are served beside the entry, and deleted when a person leaves or a decision removes the text.</p>
<pre class="entry" data-log-entry data-log-openings="${JSON.stringify(entry.openings)}"${
        entry.withheld && Object.keys(entry.withheld).length > 0 ? html` data-log-withheld="${JSON.stringify(entry.withheld)}"` : ''
      }${entry.leafHash ? html` data-log-leaf-hash="${entry.leafHash}"` : ''}>${entry.body}</pre></details>`
    : ''
}
<p class="links wrap"><a href="/v1/log/proof/bundle?index=${String(index)}" download="entry-${String(index)}.tlog-proof" data-log-download>Download the proof (C2SP tlog-proof, checks offline)</a> · <a href="${logProofUrl('', index)}">Inclusion proof</a> · <a href="/v1/log/entries?start=${String(index)}&amp;limit=1">Entry</a> · <a href="/v1/log/checkpoint">Signed checkpoint</a> · <a href="/v1/log/key">Log key</a> · <a href="/v1/log/policy">Witness policy</a></p>
<script src="/assets/log-verify.js" defer></script>
</section>`;
}

/** One entry of the transparency log on its own (a notice's, a panel version's): what it is, its bytes, its check. */
export function logEntryPage(index: number, entry: { kind: string; createdAt: string } & ShownEntry): PageOptions {
  return {
    title: `Transparency-log entry ${index}`,
    description: `Entry ${index} of Credence’s public transparency log, checked in your browser.`,
    body: html`<p class="crumbs">Transparency log</p>
<h1>Entry ${String(index)} of the transparency log</h1>
<dl class="facts"><dt>Change</dt><dd><code>${entry.kind}</code></dd><dt>Logged</dt><dd>${date(entry.createdAt)}</dd></dl>
${logSection(index, null, entry, 'This change')}`,
  };
}

/** One declared interest in words: "Employment: Acme Pharma (since 2026-01-02), ended …". */
export function interestLine(i: Proof['interests'][number]) {
  const kind = i.kind.charAt(0).toUpperCase() + i.kind.slice(1);
  const what = i.subject === 'topic' ? html`the topic ${i.name}` : i.subject === 'publication' ? html`the publication ${i.name}` : html`${i.name}`;
  return html`${kind}: ${what}${i.note ? html` (${i.note})` : ''}, declared ${date(i.declared_at)}${i.ended_at ? html`, ended ${date(i.ended_at)}` : ''}`;
}

export function proofPage(siteUrl: string, p: Proof, entry: ShownEntry | null = null): PageOptions {
  const pageTitle = p.page_title || p.page_url;
  const named = p.submission_id === null;
  const sources = storedSources(p.sources);
  const hasChange = p.before_text !== null && p.after_text !== null && (p.before_text !== '' || p.after_text !== '');
  const decidedAt = p.decided_at ?? p.accepted_at;
  const verdict = p.role === 'fact_check' ? verdictOf(p.verdict) : null;
  const drift = driftOf(p);
  return {
    title: `${roleLabel(p.role)} by ${p.name || p.username}: ${pageTitle}`,
    description: `The evidence for ${p.name || p.username}'s ${roleLabel(p.role).toLowerCase()} on “${pageTitle}”: ${p.summary}`,
    structured: {
      '@context': 'https://schema.org',
      '@type': 'CreativeWork',
      name: p.summary || roleLabel(p.role),
      url: proofUrl(siteUrl, p.id),
      author: personLd(siteUrl, p),
      dateCreated: p.accepted_at,
      about: { '@type': 'CreativeWork', name: pageTitle, url: p.page_url },
      isPartOf: { '@type': 'WebPage', url: recordUrl(siteUrl, p.page_id) },
      ...(sources.length > 0 ? { citation: sources } : {}),
    },
    body: html`<p class="crumbs"><a href="/records/${p.page_id}">Trust record of “${pageTitle}”</a></p>
<h1>${named ? html`${role(p.role)} ${p.name || p.username}, author of “${pageTitle}”` : html`${role(p.role)} ${p.summary || roleLabel(p.role)}`}</h1>
<p class="lede">By ${personLink(p)} on ${externalLink(p.page_url, pageTitle)}, published by ${publisherLink({ slug: p.publisher_slug, name: p.publisher_name })}.</p>
${drift.page_changed_since ? html`<p class="notice warn" role="note">The page has changed since this ${roleLabel(p.role).toLowerCase()}, on ${date(drift.page_changed_since)}: it was done on an earlier version and may no longer hold as written.</p>` : ''}
${drift.correction_missing ? html`<p class="notice warn" role="note">The corrected text no longer appears on the page.</p>` : ''}
${
  named
    ? html`<p class="notice">${p.name || p.username} is named as an author of this page by ${p.publisher_name}, ${
        p.consent === 'standing_permission'
          ? html`whose claims ${p.name || p.username} lets publish at once`
          : p.consent === 'confirmed'
            ? html`and confirmed it`
            : html`from before people confirmed their names`
      }. Authorship needs no evidence here: the publisher vouches for it, and the person agreed.</p>`
    : html`${
        hasChange
          ? html`<h2>The change</h2>
<p class="hint" id="diff-legend">Removed words are <del>struck through</del>; added words are <ins>underlined</ins>.</p>
<p class="diff" aria-describedby="diff-legend">${renderDiff(p.before_text ?? '', p.after_text ?? '')}</p>
<details><summary>Before and after, in full</summary><div class="grid two">
<div><h3>Before</h3><p class="text">${p.before_text ?? ''}</p></div>
<div><h3>After</h3><p class="text">${p.after_text ?? ''}</p></div></div></details>`
          : ''
      }
${p.quote_exact ? html`<h2>The passage</h2><blockquote class="text">${p.quote_exact}</blockquote>` : ''}
${verdict && p.claim ? html`<h2>The claim</h2><p class="text">${p.claim}</p><p>Verdict: <strong>${verdict.label}</strong> <span class="muted">(${verdict.value} on a scale from 1, false, to 5, true)</span></p>` : ''}
<h2>Reason</h2>
<p class="text">${p.reason ?? ''}</p>
<h2>Sources</h2>
${sources.length > 0 ? html`<ol class="sources">${sources.map((s) => html`<li>${externalLink(s)}</li>`)}</ol>` : empty('No sources were given.')}`
}
${
  p.interests.length > 0
    ? html`<section class="notice warn" role="note" aria-labelledby="interests-heading"><h2 id="interests-heading">Declared interests</h2>
<p>${p.name || p.username} declared ${p.interests.length === 1 ? 'an interest' : 'interests'} bearing on this page:</p>
<ul>${p.interests.map((i) => html`<li>${interestLine(i)}</li>`)}</ul></section>`
    : ''
}
<h2>Decision</h2>
<dl class="facts">
<dt>Outcome</dt><dd>${named ? 'Named by the publisher' : html`<span class="badge ok">Accepted</span> by ${p.publisher_name}`}</dd>
<dt>Decided</dt><dd>${date(decidedAt)}</dd>
${p.decision_note ? html`<dt>Note</dt><dd class="text">${p.decision_note}</dd>` : ''}
${p.request_id !== null ? html`<dt>Requested</dt><dd>Yes: in answer to a request by ${p.publisher_name}</dd>` : ''}
</dl>
${p.log_seq === null ? '' : logSection(Number(p.log_seq) - 1, p.id, entry)}
${reportLinks(`contribution:${p.id}`, [
  ['summary', 'the summary', Boolean(p.summary)],
  ['claim', 'the claim', Boolean(p.claim)],
  ['change_to', 'the correction', p.role === 'correction' && p.change_to !== null],
  ['evidence_reason', 'the reason', !named && Boolean(p.reason)],
])}`,
  };
}

/**
 * "Report" links to the form (/report) for each field of free text an item shows, so the notice names the exact
 * location (DSA Art. 16(2)(b)) without the notifier having to find it.
 */
export function reportLinks(item: string, fields: [field: string, words: string, shown: boolean][]) {
  const shown = fields.filter(([, , on]) => on);
  if (shown.length === 0) return '';
  return html`<p class="meta report-links">Unlawful or against the <a href="/terms">terms</a>? Report ${shown.map(
    ([f, words], i) => html`${i > 0 ? (i === shown.length - 1 ? ' or ' : ', ') : ''}<a href="/report?item=${item}:${f}">${words}</a>`,
  )}.</p>`;
}
