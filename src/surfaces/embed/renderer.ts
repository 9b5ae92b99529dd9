// The one renderer of the attribution block (SPEC §11), used by every embed. Only accepted work reaches it (it
// takes a PageRecord, which holds accepted contributions only), and every value is escaped.
import { createHash } from 'node:crypto';
import { type PageRecord, hasRecord } from '../../domain/pages/record.js';
import { standingNotice } from '../../domain/pages/notices.js';
import { escapeHtml as e } from '../html.js';
import { profileUrl, proofUrl, recordUrl } from '../urls.js';
import { DRIFTING_ROLES } from '../../domain/pages/drift.js';
import { formatDate, type Lang, wordsFor } from './i18n.js';

export const STYLES = ['full', 'compact', 'badge'] as const;
export type EmbedStyle = (typeof STYLES)[number];

/**
 * The block's stylesheet, served once at `{site_url}/embed.css` rather than inside every answer: the
 * block links it, and embed.js and `format=js` scripts adopt it into their shadow root. Scoped by class names so
 * the block also works when a CMS inserts the HTML without a shadow root. Colours keep a 4.5:1 contrast in both
 * schemes.
 */
export const EMBED_CSS = `.credence{all:initial;display:block;box-sizing:border-box;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1f2328;background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:12px 14px;max-width:40rem}
.credence *{box-sizing:border-box}.credence a{color:#0a58ca;text-decoration:underline}.credence a:focus-visible{outline:2px solid #0a58ca;outline-offset:2px}
.credence h2{all:unset;display:block;font-weight:600;font-size:15px;margin:0 0 6px}
.credence ul{list-style:none;margin:0;padding:0}.credence li{margin:6px 0;padding:0}
.credence .role{display:inline-block;font-size:12px;font-weight:600;text-transform:uppercase;letter-spacing:.03em;color:#4b535d;margin-right:6px}
.credence time{color:#4b535d;margin-left:6px}.credence .change{display:block;margin:4px 0 0;padding-left:10px;border-left:3px solid #d0d7de}
.credence del{color:#a40e26}.credence ins{color:#116329;text-decoration:none}.credence .foot{margin-top:8px;font-size:13px}
.credence .mark{font-weight:600;color:#116329}
.credence .drift{display:block;margin:4px 0 0;font-size:13px;color:#7d4e00}.credence .drift time{color:inherit;margin-left:0}
.credence .standing{display:block;margin:0 0 8px;padding:8px 10px;border-left:4px solid #a40e26;background:#fff0f0;color:#1f2328}.credence .standing strong{color:#a40e26}
.credence .standing time{color:inherit;margin-left:0}.credence .notices{margin:0 0 8px}.credence .notices li{font-size:13px}.credence .kind{font-weight:600}
.credence--flagged.credence--badge .mark,.credence--flagged .mark{color:#a40e26}
.credence--compact{padding:6px 10px}.credence .report{font-size:12px;color:#4b535d}.credence--report{display:inline;border:0;background:transparent;padding:0 0 0 6px;font-size:12px}.credence--badge{display:inline-block;padding:3px 10px;border-radius:999px;font-size:13px}
@media (prefers-color-scheme:dark){.credence{color:#e6edf3;background:#0d1117;border-color:#30363d}.credence a{color:#6cb6ff}
.credence .standing{background:#2d1215;color:#e6edf3;border-color:#ff9492}.credence .standing strong,.credence--flagged .mark{color:#ff9492}
.credence .role,.credence time,.credence .report{color:#9da7b3}.credence .drift{color:#e3b341}.credence del{color:#ff9492}.credence ins,.credence .mark{color:#56d364}.credence .change{border-color:#30363d}}`;

/** The stylesheet's version: its address changes whenever it does, so a browser may keep it for a year. */
export const EMBED_CSS_VERSION = createHash('sha256').update(EMBED_CSS).digest('base64url').slice(0, 12);

/** The block's stylesheet on this site's own origin, for this site's pages. */
export const EMBED_CSS_PATH = `/embed.css?v=${EMBED_CSS_VERSION}`;

/** Where the block's stylesheet is, for a block shown on any site: `{site_url}/embed.css?v={version}`. */
export const embedCssUrl = (siteUrl: string) => `${siteUrl}${EMBED_CSS_PATH}`;

/** The short note under work done on an older version of the page. */
function driftNote(c: PageRecord['contributions'][number], w: ReturnType<typeof wordsFor>, lang: Lang): string {
  const changed = (DRIFTING_ROLES as readonly string[]).includes(c.role) ? c.page_changed_at : null;
  const notes: string[] = [];
  if (changed) notes.push(`${e(w.pageChanged)} <time datetime="${e(changed.slice(0, 10))}">${e(formatDate(changed, lang))}</time>.`);
  if (c.role === 'correction' && c.correction_missing === 1) notes.push(e(w.correctionMissing));
  return notes.length ? `<span class="drift" role="note">${notes.join(' ')}</span>` : '';
}

/**
 * What a reader must read first on a page that is not in good standing: the standing in one word and one
 * plain sentence, the reason and date of the notice that set it, and the link to the notice itself.
 */
function standingBanner(record: PageRecord, w: ReturnType<typeof wordsFor>, lang: Lang): string {
  if (record.standing === 'current') return '';
  const s = w.standings[record.standing];
  const n = standingNotice(record.notices);
  const when = n ? ` <time datetime="${e(n.notice_date)}">${e(formatDate(`${n.notice_date}T00:00:00Z`, lang))}</time>.` : '';
  const reason = n ? ` ${e(n.reason)}` : '';
  const link = n?.notice_url ? ` <a href="${e(n.notice_url)}">${e(w.readNotice)}</a>` : '';
  return `<p class="standing" role="note"><strong>${e(s.label)}.</strong> ${e(s.sentence)}${when}${reason}${link}</p>`;
}

/** Every notice, newest first, but the one the standing banner already says: a notice is said once. */
function noticeList(record: PageRecord, w: ReturnType<typeof wordsFor>, lang: Lang): string {
  const said = record.standing === 'current' ? undefined : standingNotice(record.notices);
  const others = record.notices.filter((n) => n !== said);
  if (others.length === 0) return '';
  const items = others
    .map(
      (n) =>
        `<li><span class="kind">${e(w.notices[n.type])}</span><time datetime="${e(n.notice_date)}">${e(formatDate(`${n.notice_date}T00:00:00Z`, lang))}</time>: ${e(n.reason)}${n.notice_url ? ` <a href="${e(n.notice_url)}">${e(w.readNotice)}</a>` : ''}</li>`,
    )
    .join('');
  return `<ul class="notices" aria-label="${e(w.noticesHeading)}">${items}</ul>`;
}

/** The badge is one link: the report link stands beside it, in a block of its own that no host style reaches. */
const badgeReport = (siteUrl: string, pageId: number, w: ReturnType<typeof wordsFor>, lang: Lang) =>
  ` <a class="credence credence--report" lang="${lang}" href="${e(`${siteUrl}/report?item=page:${pageId}`)}">${e(w.report)}</a>`;

export interface RenderInput {
  siteUrl: string;
  record: PageRecord;
  style: EmbedStyle;
  lang: Lang;
  /** Where the block links its stylesheet: `embedCssUrl(siteUrl)` unless this site's own page shows it. */
  stylesheet?: string;
}

/**
 * The block's HTML, or '' when nothing may be shown: a page off a verified domain, or without accepted work or
 * notices. A page that is not in good standing leads with it, in every style.
 */
export function renderAttribution({ siteUrl, record, style, lang, stylesheet = embedCssUrl(siteUrl) }: RenderInput): string {
  if (!record.verified || !hasRecord(record)) return '';
  const w = wordsFor(lang);
  const flagged = record.standing !== 'current';
  const flag = flagged ? ' credence--flagged' : '';
  const recordHref = recordUrl(siteUrl, record.page.id);
  // Every style links the report form for the page's record (DSA Art. 16); the form names the item, the notifier
  // may narrow it to one contribution there.
  const report = `<a class="report" href="${e(`${siteUrl}/report?item=page:${record.page.id}`)}">${e(w.report)}</a>`;
  // Linked, not carried: a script that adopts the sheet itself (embed.js, format=js) drops this link unfetched.
  const style_ = `<link rel="stylesheet" href="${e(stylesheet)}">`;
  if (style === 'badge') {
    if (flagged) {
      const s = w.standings[record.standing as Exclude<typeof record.standing, 'current'>];
      return `${style_}<a class="credence credence--badge${flag}" lang="${lang}" href="${e(recordHref)}" title="${e(s.sentence)}"><span class="mark" aria-hidden="true">⚠</span> ${e(s.label)}</a>${badgeReport(siteUrl, record.page.id, w, lang)}`;
    }
    return `${style_}<a class="credence credence--badge" lang="${lang}" href="${e(recordHref)}"><span class="mark" aria-hidden="true">✓</span> ${e(w.verified)}</a>${badgeReport(siteUrl, record.page.id, w, lang)}`;
  }
  if (style === 'compact') {
    const byRole = new Map<string, string[]>();
    for (const c of record.contributions) {
      const names = byRole.get(c.role) ?? [];
      if (!names.includes(c.name)) names.push(c.name);
      byRole.set(c.role, names);
    }
    const parts = [...byRole].map(([role, names]) => `${e(w.by[role] ?? role)} ${names.map(e).join(', ')}`);
    if (flagged) {
      const s = w.standings[record.standing as Exclude<typeof record.standing, 'current'>];
      const lead = `<strong>${e(s.label)}.</strong> ${e(s.sentence)}`;
      return `${style_}<p class="credence credence--compact${flag}" lang="${lang}"><span class="mark" aria-hidden="true">⚠</span> ${[lead, ...parts].join(' · ')} · <a href="${e(recordHref)}">${e(w.record)}</a> · ${report}</p>`;
    }
    const line = parts.length ? `${parts.join(' · ')} · ` : '';
    return `${style_}<p class="credence credence--compact" lang="${lang}"><span class="mark" aria-hidden="true">✓</span> ${line}<a href="${e(recordHref)}">${e(w.verified)}</a> · ${report}</p>`;
  }
  const items = record.contributions
    .map((c) => {
      const change =
        c.role === 'correction' && c.change_from !== null && c.change_to !== null
          ? `<span class="change">${e(w.changed)} ${e(w.from)} <del>${e(c.change_from)}</del> ${e(w.to)} <ins>${e(c.change_to)}</ins></span>`
          : '';
      // The entry in the transparency log that published it, so a reader can check the record was not rewritten: the
      // proof page's log section, which checks it in the reader's browser.
      const log = c.log_seq === null || c.log_seq === undefined ? '' : ` · <a href="${e(`${proofUrl(siteUrl, c.id)}#log`)}">${e(w.logEntry(Number(c.log_seq) - 1))}</a>`;
      const drift = driftNote(c, w, lang);
      return `<li><span class="role">${e(w.roles[c.role] ?? c.role)}</span><a href="${e(profileUrl(siteUrl, c.username))}">${e(c.name)}</a><time datetime="${e(c.accepted_at.slice(0, 10))}">${e(formatDate(c.accepted_at, lang))}</time> · <a href="${e(proofUrl(siteUrl, c.id))}">${e(w.proof)}</a>${log}${change}${drift}</li>`;
    })
    .join('');
  // A retracted (withdrawn, ...) page leads with it; every notice follows, newest first, then the work, kept whole.
  const work = items ? `<h2>${e(w.heading)}</h2><ul>${items}</ul>` : '';
  const mark = flagged ? '⚠' : '✓';
  return `${style_}<section class="credence credence--full${flag}" lang="${lang}" aria-label="${e(w.heading)}">${standingBanner(record, w, lang)}${noticeList(record, w, lang)}${work}<p class="foot"><span class="mark" aria-hidden="true">${mark}</span> <a href="${e(recordHref)}">${e(w.record)}</a> · ${report}</p></section>`;
}
