// The rows that say which accounts a stored payload names (mentions.ts has the rule): written in the transaction
// that writes the payload, read by erasure.
import type { Db } from '../../db/schema.js';
import { namedUsernames } from './mentions.js';

/** The accounts of these usernames (names no account holds are left out). */
async function accountIds(trx: Db, usernames: string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (let i = 0; i < usernames.length; i += 500) {
    const rows = await trx.selectFrom('accounts').select(['id', 'username']).where('username', 'in', usernames.slice(i, i + 500)).execute();
    for (const r of rows) out.set(r.username, r.id);
  }
  return out;
}

/** What each payload names: its person slots resolved to accounts, and the account it concerns, if any. */
async function mentionsOf(trx: Db, items: { payload: unknown; accountId?: number | null }[]): Promise<number[][]> {
  const names = items.map((i) => namedUsernames(i.payload));
  const ids = await accountIds(trx, [...new Set(names.flat())]);
  return items.map((item, n) => {
    const found = new Set<number>(names[n]!.flatMap((u) => (ids.has(u) ? [ids.get(u)!] : [])));
    if (item.accountId != null) found.add(item.accountId);
    return [...found];
  });
}

export async function recordEventMentions(trx: Db, events: { id: number; payload: unknown; accountId?: number | null }[]): Promise<void> {
  const mentions = await mentionsOf(trx, events);
  const rows = events.flatMap((e, n) => mentions[n]!.map((account_id) => ({ event_id: e.id, account_id })));
  for (let i = 0; i < rows.length; i += 400) await trx.insertInto('event_mentions').values(rows.slice(i, i + 400)).onConflict((oc) => oc.doNothing()).execute();
}

export async function recordMailMentions(trx: Db, mailId: number, facts: unknown): Promise<void> {
  const [ids] = await mentionsOf(trx, [{ payload: facts }]);
  if (ids!.length === 0) return;
  await trx.insertInto('mail_mentions').values(ids!.map((account_id) => ({ mail_id: mailId, account_id }))).onConflict((oc) => oc.doNothing()).execute();
}

/** The events that name the account, and the mail about them sent to others. */
export const eventsNaming = (db: Db, accountId: number) => db.selectFrom('event_mentions').select('event_id').where('account_id', '=', accountId).execute();
export const mailNaming = (db: Db, accountId: number) => db.selectFrom('mail_mentions').select('mail_id').where('account_id', '=', accountId).execute();
