// One webhook per URL and format per owner (the publication for a publication's webhook, the account for a
// person's own), and the per-host delivery count every instance shares (docs/decisions/webhook-caps-and-host-ceiling.md);
// stored page and webhook URLs as RFC 3986 URIs.
//
// Stored URLs are first written as RFC 3986 URIs (`|`, `{}`, `^`, `[]`, a backquote, a backslash and a stray `%`
// percent-encoded, as registration now stores them), so `/a|b` and `/a%7Cb` are one URL. Duplicates an upgraded
// database already holds are merged, not refused: the oldest of each group stays, subscribed to every event any
// of the group was, and the others are deleted with their deliveries and attempts (the receiver is the same URL
// and hears each event once through the one kept).
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { type AnyDb, notNull } from './helpers.js';

/** Characters RFC 3986 allows as they are in a path, query or fragment; `%` only before two hex digits. */
const URI_SAFE = /[A-Za-z0-9\-._~!$&'()*+,;=:@/?]/;

function uriPart(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (URI_SAFE.test(c) || (c === '%' && /^[0-9A-Fa-f]{2}$/.test(s.slice(i + 1, i + 3)))) {
      out += c;
      continue;
    }
    const ch = String.fromCodePoint(s.codePointAt(i)!);
    if (ch.length === 2) i++;
    for (const b of Buffer.from(ch, 'utf8')) out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** The URL as registration now stores it; unchanged when it does not parse (it then fails its attempts, as before). */
function asUri(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return raw;
  }
  return `${u.protocol}//${u.host}${uriPart(u.pathname)}${u.search ? `?${uriPart(u.search.slice(1))}` : ''}`;
}

/** A character RFC 3986 does not allow as it is in a path or query, or a `%` that starts no escape. */
const NOT_URI = /[^A-Za-z0-9\-._~!$&'()*+,;=:@/?%]|%(?![0-9A-Fa-f]{2})/;

/** A stored page URL and its keys as registration now makes them (SPEC §3 over the URI form); null when unchanged. */
function pageAsUri(stored: string): { url: string; lookupKey: string; embedKey: string } | null {
  let u: URL;
  try {
    u = new URL(stored);
  } catch {
    return null;
  }
  if (!NOT_URI.test(u.pathname) && !NOT_URI.test(u.search)) return null;
  u.hash = '';
  u.pathname = uriPart(u.pathname);
  if (u.search) u.search = uriPart(u.search.slice(1));
  const host = u.port ? `${u.hostname}:${u.port}` : u.hostname;
  const path = u.pathname.replace(/\/+$/, '');
  return { url: u.href, lookupKey: `${host}${path}${u.search}`, embedKey: `${host.replace(/^www\./, '')}${path}` };
}

/**
 * Pages stored with such characters take the URI form and its keys, so the page `/a|b` is found by `/a|b` and by
 * `/a%7Cb` alike. Where a page already holds the new lookup key (both spellings were registered as two pages), the
 * older spelling is left as it was: pages carry records and cannot be merged here; the one already in URI form is
 * the one both spellings now find.
 */
async function pagesAsUris(db: AnyDb): Promise<void> {
  let after = 0;
  for (;;) {
    const rows = (await db.selectFrom('pages').select(['id', 'url']).where('id', '>', after).orderBy('id').limit(500).execute()) as { id: number; url: string }[];
    if (rows.length === 0) return;
    after = rows.at(-1)!.id;
    for (const r of rows) {
      const next = pageAsUri(r.url);
      if (!next) continue;
      const taken = await db.selectFrom('pages').select('id').where('lookup_key', '=', next.lookupKey).where('id', '!=', r.id).executeTakeFirst();
      if (taken) continue;
      await db
        .updateTable('pages')
        .set({ url: next.url, lookup_key: next.lookupKey, embed_key: next.embedKey, embed_key_hash: createHash('sha256').update(next.embedKey, 'utf8').digest('hex') })
        .where('id', '=', r.id)
        .execute();
    }
  }
}

export async function up(db: AnyDb): Promise<void> {
  await pagesAsUris(db);
  const rows = (await db.selectFrom('webhooks').select(['id', 'account_id', 'publisher_id', 'format', 'url', 'events']).orderBy('id').execute()) as {
    id: number;
    account_id: number;
    publisher_id: number | null;
    format: string;
    url: string;
    events: string;
  }[];
  const kept = new Map<string, { id: number; events: Set<string>; changed: boolean }>();
  for (const r of rows) {
    const url = asUri(r.url);
    if (url !== r.url) await db.updateTable('webhooks').set({ url }).where('id', '=', r.id).execute();
    const owner = r.publisher_id === null ? `a${r.account_id}` : `p${r.publisher_id}`;
    const key = `${owner} ${r.format} ${url}`;
    let events: string[] = [];
    try {
      events = JSON.parse(r.events) as string[];
    } catch {
      // An unreadable list keeps what the kept row has.
    }
    const first = kept.get(key);
    if (!first) {
      kept.set(key, { id: r.id, events: new Set(events), changed: false });
      continue;
    }
    for (const e of events) {
      if (first.events.has(e)) continue;
      first.events.add(e);
      first.changed = true;
    }
    await db.deleteFrom('webhooks').where('id', '=', r.id).execute();
  }
  for (const k of kept.values()) {
    if (k.changed) await db.updateTable('webhooks').set({ events: JSON.stringify([...k.events]) }).where('id', '=', k.id).execute();
  }

  // The backstop under the check registration makes under its lock.
  await db.schema
    .createIndex('webhooks_one_url_per_publication')
    .unique()
    .on('webhooks')
    .columns(['publisher_id', 'format', 'url'])
    .where(sql.ref('publisher_id'), 'is not', null)
    .execute();
  await db.schema
    .createIndex('webhooks_one_url_per_own')
    .unique()
    .on('webhooks')
    .columns(['account_id', 'format', 'url'])
    .where(sql.ref('publisher_id'), 'is', null)
    .execute();

  // Deliveries sent to one destination (a registrable domain, or an address) in the current minute, for every
  // instance: `window_start` is the minute (UTC, ISO) `sent` counts; a new minute starts the count again.
  await db.schema
    .createTable('webhook_host_windows')
    .addColumn('host', 'text', (c) => c.primaryKey())
    .addColumn('window_start', 'text', notNull)
    .addColumn('sent', 'integer', notNull)
    // What the last take of sends was granted: its statement returns it (webhook.store.ts, takeHostSends).
    .addColumn('last_grant', 'integer', notNull)
    .execute();
}
