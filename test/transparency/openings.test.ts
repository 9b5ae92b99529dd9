// log:verify checks each salted commitment of an entry against the opening served beside it:
// base64(HMAC-SHA256(opening, canonical JSON of the value)) at the opening's JSON Pointer. An opening that is absent
// was erased: reported, not failed; one that does not match is a failure. The commitments are made here with Node's
// crypto from the format's text; they are added to its /v1/log/entries answers by the test's fetch, everything else real.
import { createHmac, randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { integrate } from '../../src/domain/transparency/log.service.js';
import { VerifyFailure, verifyLog } from '../../src/audit/log-verify.js';
import { startTestApp, type TestApp } from '../harness.js';

let t: TestApp;
const people = [
  { username: 'ana', name: 'Ana Álvarez' },
  { username: 'ben', name: 'Ben "B" Okoro' },
];
const openings = people.map(() => randomBytes(32));
const canonical = (v: Record<string, string>) => `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${JSON.stringify(v[k])}`).join(',')}}`;
const commit = (key: Buffer, v: Record<string, string>) => createHmac('sha256', key).update(canonical(v)).digest('base64');

beforeAll(async () => {
  t = await startTestApp({ rateLimitAllowlist: ['127.0.0.1'] });
  const now = new Date().toISOString();
  for (const [i, p] of people.entries()) {
    const body = JSON.stringify({ contributor: { commitment: commit(openings[i]!, p) }, kind: 'contributor.created' });
    await sql`insert into changes (seq, created_at, kind, page_id, account_id, publisher_id, panel_id, body)
      values (${i + 1}, ${now}, ${'contributor.created'}, ${null}, ${null}, ${null}, ${null}, ${body})`.execute(t.runtime.deps.db);
  }
  await integrate(t.runtime.deps);
});
afterAll(async () => t?.close());

/** The entries route as the service serves it: each item with `openings` beside it (those not erased). */
function serving(open: (i: number) => { opening: string; value: unknown } | null): typeof fetch {
  return async (input, init) => {
    const res = await fetch(input, init);
    if (!String(input).includes('/v1/log/entries')) return res;
    const page = (await res.json()) as { data: { index: number; openings?: unknown }[] };
    for (const e of page.data) {
      const o = open(e.index);
      e.openings = o ? { '/contributor': o } : {};
    }
    return new Response(JSON.stringify(page), { headers: { 'content-type': 'application/json' } });
  };
}

async function run(f: typeof fetch) {
  const lines: string[] = [];
  try {
    await verifyLog({ url: t.baseUrl, out: (l) => lines.push(l), fetch: f });
    return { ok: true, out: lines.join('\n') };
  } catch (err) {
    if (!(err instanceof VerifyFailure)) throw err;
    return { ok: false, out: err.message };
  }
}

describe('commitments and openings', () => {
  it('checks every opening against its commitment', async () => {
    const r = await run(serving((i) => ({ opening: openings[i]!.toString('base64'), value: people[i] })));
    expect(r.out).toContain('commitments: 2 opened and matching');
    expect(r.ok).toBe(true);
  });

  it('reports an erased opening and still verifies the log', async () => {
    const r = await run(serving((i) => (i === 1 ? null : { opening: openings[i]!.toString('base64'), value: people[i] })));
    expect(r.ok).toBe(true);
    expect(r.out).toContain('commitments: 1 opened and matching; 1 erased');
    expect(r.out).toContain('1/contributor');
  });

  it('fails on an opening that does not match its commitment', async () => {
    const r = await run(serving((i) => ({ opening: openings[i]!.toString('base64'), value: i === 0 ? { ...people[0], name: 'Someone Else' } : people[i] })));
    expect(r.ok).toBe(false);
    expect(r.out).toContain('entry 0: the opening of /contributor does NOT match its commitment');
  });
});
