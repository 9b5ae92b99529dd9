// Who each stored payload names, by reference: an outbox event (and so every webhook delivery made from it) and a
// mail message each get a row per account their JSON names. Erasure finds what to redact through these rows, never
// by searching payload text for a person's strings (a name that is a common word, or part of a URL or a title,
// matched other publications' data). Existing rows are linked here from the slots that name people, resolved to
// accounts once.
import type { AnyDb } from './helpers.js';

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('event_mentions')
    .addColumn('event_id', 'integer', (c) => c.notNull().references('events.id').onDelete('cascade'))
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('event_mentions_pk', ['event_id', 'account_id'])
    .execute();
  await db.schema.createIndex('event_mentions_account').on('event_mentions').columns(['account_id', 'event_id']).execute();
  await db.schema
    .createTable('mail_mentions')
    .addColumn('mail_id', 'integer', (c) => c.notNull().references('mail_outbox.id').onDelete('cascade'))
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('mail_mentions_pk', ['mail_id', 'account_id'])
    .execute();
  await db.schema.createIndex('mail_mentions_account').on('mail_mentions').columns(['account_id', 'mail_id']).execute();

  const accounts = new Map<string, number>();
  for (const a of await db.selectFrom('accounts').select(['id', 'username']).execute()) accounts.set(a.username as string, a.id as number);
  const idsOf = (text: string, also: (number | null)[]): number[] => {
    const ids = new Set<number>(also.filter((a): a is number => a !== null));
    for (const u of usernamesIn(JSON.parse(text) as unknown)) {
      const id = accounts.get(u);
      if (id !== undefined && u !== 'former-contributor') ids.add(id);
    }
    return [...ids];
  };
  let after = 0;
  for (;;) {
    const rows = await db.selectFrom('events').select(['id', 'payload', 'account_id']).where('id', '>', after).orderBy('id').limit(500).execute();
    if (rows.length === 0) break;
    const links = rows.flatMap((r) => idsOf(r.payload as string, [r.account_id as number | null]).map((account_id) => ({ event_id: r.id, account_id })));
    if (links.length > 0) await db.insertInto('event_mentions').values(links).execute();
    after = rows[rows.length - 1]!.id as number;
  }
  after = 0;
  for (;;) {
    const rows = await db.selectFrom('mail_outbox').select(['id', 'facts']).where('id', '>', after).orderBy('id').limit(500).execute();
    if (rows.length === 0) break;
    const links = rows.flatMap((r) => idsOf(r.facts as string, []).map((account_id) => ({ mail_id: r.id, account_id })));
    if (links.length > 0) await db.insertInto('mail_mentions').values(links).execute();
    after = rows[rows.length - 1]!.id as number;
  }
}

/** The slots that named a person when this migration was written (a frozen copy of privacy/mentions.ts's rule). */
function usernamesIn(value: unknown, key = ''): string[] {
  if (typeof value === 'string') return ['contributor', 'taken_by', 'inviter', 'username'].includes(key) ? [value] : [];
  if (Array.isArray(value)) return value.flatMap((v) => usernamesIn(v));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => usernamesIn(v, k));
  return [];
}
