// The outbox (SPEC §10): an event is written in the same transaction as the change that causes it, so it exists
// exactly when the change committed. Delivery reads this table after commit.
import type { EventType } from '../../db/vocabulary.js';
import type { Db } from '../../db/schema.js';
import { recordEventMentions } from '../privacy/mentions.store.js';

export type { EventType };

export async function appendEvent(db: Db, event: NewEvent): Promise<number> {
  const r = await db
    .insertInto('events')
    .values({
      type: event.type,
      publisher_id: event.publisherId,
      page_id: event.pageId,
      account_id: event.accountId ?? null,
      payload: JSON.stringify(event.payload),
      created_at: event.now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await recordEventMentions(db, [{ id: r.id, payload: event.payload, accountId: event.accountId }]);
  return r.id;
}

export interface NewEvent {
  type: EventType;
  publisherId: number | null;
  pageId: number | null;
  /** The person the event concerns: their own webhooks receive it. */
  accountId?: number | null;
  payload: unknown;
  now: string;
}

/**
 * Several events in one statement per 200 (a batch write's events), in the order given: ids follow it. Each is
 * written with the accounts its payload names (privacy/mentions.ts), which erasure reads.
 */
export async function appendEvents(db: Db, events: NewEvent[]): Promise<void> {
  for (let i = 0; i < events.length; i += 200) {
    const slice = events.slice(i, i + 200);
    const rows = await db
      .insertInto('events')
      .values(
        slice.map((e) => ({
          type: e.type,
          publisher_id: e.publisherId,
          page_id: e.pageId,
          account_id: e.accountId ?? null,
          payload: JSON.stringify(e.payload),
          created_at: e.now,
        })),
      )
      .returning('id')
      .execute();
    const ids = rows.map((r) => r.id).sort((a, b) => a - b);
    await recordEventMentions(db, slice.map((e, n) => ({ id: ids[n]!, payload: e.payload, accountId: e.accountId })));
  }
}
