// The outbox (SPEC §10): an event is written in the same transaction as the change that causes it, so it exists
// exactly when the change committed. Delivery reads this table after commit.
import type { Db } from '../deps.js';

export type EventType =
  | 'page.registered'
  | 'page.changed'
  | 'contribution.submitted'
  | 'contribution.accepted'
  | 'contribution.withdrawn'
  | 'request.taken'
  | 'submission.received'
  | 'panel.updated';

export async function appendEvent(
  db: Db,
  event: { type: EventType; publisherId: number | null; pageId: number | null; payload: unknown; now: string },
): Promise<number> {
  const r = await db
    .insertInto('events')
    .values({
      type: event.type,
      publisher_id: event.publisherId,
      page_id: event.pageId,
      payload: JSON.stringify(event.payload),
      created_at: event.now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return r.id;
}
