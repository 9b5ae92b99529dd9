// The demo dataset as plain data, computed from the fixed parts in demo-data.ts and a seeded generator: the same
// pages, titles, dates and authors come out on every run and every machine. seed.ts applies it through services.
import { DEMO_CONTRIBUTORS, DEMO_PUBLISHERS, type DemoPerson, type DemoPublisher, type DemoTopic, HEADLINES, SLOTS } from './demo-data.js';
import { createPrng, type Prng } from './prng.js';

export interface DemoPage {
  publisher: string;
  url: string;
  title: string;
  topic: DemoTopic;
  authors: string[];
  /** When the page was registered (and its authors credited): ISO 8601 UTC. */
  registeredAt: string;
}

export interface DemoPlan {
  publishers: DemoPublisher[];
  /** Every account: the publishers' owners first, then the contributors. */
  people: DemoPerson[];
  /** Pages in registration order: by publisher, generated pages oldest first, then its featured pages. */
  pages: DemoPage[];
}

const SEED = 20261121;
// A year of publishing, ending a few days before the demo's reference date.
const FIRST_DAY = Date.parse('2025-11-24T00:00:00.000Z');
const DAYS = 357;
const DAY_MS = 86_400_000;
/** Share of pages that name no author (a wire story, an unsigned explainer). */
const UNSIGNED = 0.12;
/** Share of signed pages with a second author. */
const CO_AUTHORED = 0.15;

export function planDemo(): DemoPlan {
  const rng = createPrng(SEED);
  // Featured titles are fixed; generated ones must not repeat them.
  const usedTitles = new Set(DEMO_PUBLISHERS.flatMap((p) => (p.featured ?? []).map((f) => f.title)));
  const pages: DemoPage[] = [];
  for (const publisher of DEMO_PUBLISHERS) {
    const featured = publisher.featured ?? [];
    const usedUrls = new Set(featured.map((f) => f.path));
    const generated = publisher.pages - featured.length;
    for (let i = 0; i < generated; i++) {
      const topic = publisher.sections[i % publisher.sections.length]!;
      const title = uniqueTitle(rng, topic, usedTitles);
      const day = Math.min(DAYS - 1, Math.floor(((i + rng.next()) * DAYS) / generated));
      const minutes = 6 * 60 + rng.int(14 * 60);
      const registeredAt = new Date(FIRST_DAY + day * DAY_MS + minutes * 60_000).toISOString();
      let slug = slugify(title);
      const path = (s: string) => publisher.path({ section: topic, slug: s, date: registeredAt });
      for (let n = 2; usedUrls.has(path(slug)); n++) slug = `${slugify(title)}-${n}`;
      usedUrls.add(path(slug));
      pages.push({
        publisher: publisher.slug,
        url: `https://${publisher.host}${path(slug)}`,
        title,
        topic,
        authors: pickAuthors(rng, topic),
        registeredAt,
      });
    }
    for (const f of featured) {
      const { path, ...rest } = f;
      pages.push({ publisher: publisher.slug, url: `https://${publisher.host}${path}`, ...rest });
    }
  }
  return { publishers: DEMO_PUBLISHERS, people: [...DEMO_PUBLISHERS.map((p) => p.owner), ...DEMO_CONTRIBUTORS], pages };
}

function uniqueTitle(rng: Prng, topic: DemoTopic, used: Set<string>): string {
  for (let attempt = 0; attempt < 200; attempt++) {
    const filled = rng.pick(HEADLINES[topic]).replace(/\{(\w+)\}/g, (_, slot: string) => rng.pick(SLOTS[slot] ?? [slot]));
    // "the Lakes district" can open a headline.
    const title = filled.charAt(0).toUpperCase() + filled.slice(1);
    if (!used.has(title)) {
      used.add(title);
      return title;
    }
  }
  throw new Error(`the demo has run out of ${topic} headlines; add templates to demo-data.ts`);
}

const MAX_SLUG = 80;

export function slugify(title: string): string {
  const slug = title
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f'’]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
  // Long titles are cut at a word boundary, as CMSs do.
  return slug.length <= MAX_SLUG ? slug : slug.slice(0, slug.lastIndexOf('-', MAX_SLUG));
}

function pickAuthors(rng: Prng, topic: DemoTopic): string[] {
  if (rng.chance(UNSIGNED)) return [];
  const candidates = DEMO_CONTRIBUTORS.filter((c) => c.topics.includes(topic));
  // Skewed towards the first names in the list, so some writers are prolific and others occasional.
  const skewed = () => candidates[Math.floor(rng.next() ** 1.3 * candidates.length)]!.username;
  const first = skewed();
  if (!rng.chance(CO_AUTHORED)) return [first];
  const second = rng.pick(candidates.filter((c) => c.username !== first)).username;
  return [first, second];
}
