// The events a person's own webhook hears (docs/webhooks.md, "Your own webhook"), written in the
// transaction of their change like every event. Only for people who hold such a webhook: otherwise the outbox would
// grow by an event per accepted work that nobody listens for. A webhook registered while a change commits may miss
// that change; like every endpoint it receives what happens after it exists.
import type { Change } from '../changes/change.js';
import type { Db } from '../../db/schema.js';
import type { CreditedFacts, NamedFacts, UncreditedFacts } from '../webhooks/facts.js';
import { appendEvents, type NewEvent } from './outbox.js';

/** Of these accounts, the ones holding a webhook of their own. */
async function accountsWithOwnWebhooks(trx: Db, accountIds: number[]): Promise<Set<number>> {
  const ids = [...new Set(accountIds)];
  if (ids.length === 0) return new Set();
  const rows = await trx.selectFrom('webhooks').select('account_id').where('publisher_id', 'is', null).where('account_id', 'in', ids).distinct().execute();
  return new Set(rows.map((r) => r.account_id));
}

/**
 * The change-log entries that now name a person (`contribution.accepted`: accepted work or a published authorship)
 * or no longer do (`contribution.withdrawn`), as `contributor.credited` / `contributor.uncredited` events for their
 * own webhooks. Every path that names someone in public goes through the change log, so none is missed. The facts
 * are the entry's public fields and its seq, without the person's own name (they know it, and an erasure has one
 * copy fewer to redact).
 */
export async function eventsForPeopleNamed(trx: Db, changes: Change[], seqs: number[]): Promise<void> {
  const naming = changes.flatMap((c, i) =>
    (c.kind === 'contribution.accepted' || c.kind === 'contribution.withdrawn') && c.ids.accountId != null ? [{ change: c, seq: seqs[i]!, accountId: c.ids.accountId }] : [],
  );
  if (naming.length === 0) return;
  const listening = await accountsWithOwnWebhooks(trx, naming.map((n) => n.accountId));
  const events: NewEvent[] = naming
    .filter((n) => listening.has(n.accountId))
    .map(({ change, seq, accountId }) => {
      const { contributor: _name, ...fields } = change.data;
      return {
        type: change.kind === 'contribution.accepted' ? ('contributor.credited' as const) : ('contributor.uncredited' as const),
        publisherId: change.ids.publisherId ?? null,
        pageId: change.ids.pageId ?? null,
        accountId,
        payload: { seq, ...fields } as unknown as CreditedFacts | UncreditedFacts,
        now: change.now,
      };
    });
  await appendEvents(trx, events);
}

/** A publication asked these people to confirm they are named (pending claims): `contributor.named` for their own webhooks. */
export async function eventsForPeopleAsked(trx: Db, asked: { accountId: number; publisherId: number; facts: NamedFacts }[], now: string): Promise<void> {
  const listening = await accountsWithOwnWebhooks(trx, asked.map((a) => a.accountId));
  await appendEvents(
    trx,
    asked
      .filter((a) => listening.has(a.accountId))
      .map((a) => ({ type: 'contributor.named' as const, publisherId: a.publisherId, pageId: a.facts.page.id, accountId: a.accountId, payload: a.facts, now })),
  );
}
