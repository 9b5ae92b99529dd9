// Every public contribution as a W3C Web Annotation: what annotation tools read. The target is the
// page, narrowed by a TextQuoteSelector when the work quotes it (a correction's `from` text, or the quote a
// review or fact check gave); the motivation follows the kind of work; the creator is the contributor's profile.
import type { getProof } from '../../domain/contributors/contributor.service.js';
import { verdictOf } from '../../domain/submissions/verdicts.js';
import { profileUrl, proofUrl } from '../urls.js';
import { JSON_LD_TYPE, preferredType } from './schema-org.js';
import { storedSources } from '../../domain/submissions/submission.service.js';

type Proof = Awaited<ReturnType<typeof getProof>>;

export const ANNO_CONTEXT = 'http://www.w3.org/ns/anno.jsonld';
export const ANNO_TYPE = `application/ld+json; profile="${ANNO_CONTEXT}"`;

/** The Web Annotation motivation of each kind of work (Web Annotation Vocabulary §3.3.5). */
export const MOTIVATIONS: Record<string, string> = {
  review: 'assessing',
  fact_check: 'assessing',
  edit: 'editing',
  correction: 'editing',
  source: 'linking',
  author: 'describing',
};

interface TextBody {
  type: 'TextualBody';
  value: string;
  format: 'text/plain';
  purpose: string;
}

const body = (value: string, purpose: string): TextBody => ({ type: 'TextualBody', value, format: 'text/plain', purpose });

function selectorOf(p: Proof) {
  if (p.quote_exact) {
    return {
      type: 'TextQuoteSelector',
      exact: p.quote_exact,
      ...(p.quote_prefix ? { prefix: p.quote_prefix } : {}),
      ...(p.quote_suffix ? { suffix: p.quote_suffix } : {}),
    };
  }
  if (p.role === 'correction' && p.change_from) return { type: 'TextQuoteSelector', exact: p.change_from };
  return null;
}

/** A publication's claim, said as a reader needs it: who named the person, and how they agreed. */
const PROVENANCE_WORDS: Record<Proof['consent'], (publisher: string, person: string) => string> = {
  confirmed: (publisher, person) => `Named as the author by ${publisher}; confirmed by ${person}`,
  standing_permission: (publisher, person) => `Named as the author by ${publisher}, which ${person} lets publish what it names them in`,
  not_asked: (publisher) => `Named as the author by ${publisher}`,
  submitted: (_publisher, person) => `Submitted by ${person}`,
  operator: () => 'Recorded by the operator',
};

export function contributionAnnotation(siteUrl: string, p: Proof) {
  const motivation = MOTIVATIONS[p.role] ?? 'commenting';
  const bodies: (TextBody | string)[] = [];
  if (p.summary) bodies.push(body(p.summary, 'describing'));
  if (p.role === 'correction' && p.change_to !== null) bodies.push(body(p.change_to, 'editing'));
  const verdict = p.role === 'fact_check' ? verdictOf(p.verdict) : null;
  if (verdict && p.claim) bodies.push(body(`${p.claim}: ${verdict.label}`, 'assessing'));
  if (p.reason) bodies.push(body(p.reason, 'commenting'));
  for (const source of storedSources(p.sources)) bodies.push(source);
  const selector = selectorOf(p);
  const person = { id: profileUrl(siteUrl, p.username), type: 'Person', name: p.name || p.username, nickname: p.username };
  if (p.asserted_by === 'publisher') bodies.push(body(PROVENANCE_WORDS[p.consent](p.publisher_name, p.name || p.username), 'describing'));
  return {
    '@context': ANNO_CONTEXT,
    id: proofUrl(siteUrl, p.id),
    type: 'Annotation',
    motivation,
    created: p.accepted_at,
    // Who asserted it: the person for work they submitted; a publication naming an author asserted it
    // with the person, who confirmed it (or let the publication publish its claims).
    creator:
      p.asserted_by === 'publisher'
        ? [person, { id: `${siteUrl}/publishers/${encodeURIComponent(p.publisher_slug)}`, type: 'Organization', name: p.publisher_name }]
        : person,
    generator: { id: siteUrl, type: 'Software', name: 'Credence' },
    ...(bodies.length > 0 ? { body: bodies } : {}),
    target: selector ? { source: p.page_url, selector } : p.page_url,
  };
}

/** The caller asks for a Web Annotation: JSON-LD (with or without the anno.jsonld profile) before JSON or HTML. */
export const wantsAnnotation = (accept: string | undefined) => preferredType(accept) === JSON_LD_TYPE;
