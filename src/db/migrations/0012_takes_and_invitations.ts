// Takes that expire, and invitations that lapse with their inviter.
// - `request_take_expiries`: one row per take that ran out without work (the request reopened), for the specialist's
//   /me and the publisher's dashboard; written in the transaction that reopens the request.
// - An index for the expiry sweep, which reads taken requests by the time they were taken.
// - Invitations whose inviter is no longer an owner of the publication are withdrawn (acceptance checks this now;
//   these were left from before).
import { sql } from 'kysely';
import type { Dialect } from '../client.js';
import { type AnyDb, notNull, withId } from './helpers.js';

export async function up(db: AnyDb, dialect: Dialect): Promise<void> {
  await withId(db.schema.createTable('request_take_expiries'), dialect)
    .addColumn('request_id', 'integer', (c) => c.notNull().references('requests.id').onDelete('cascade'))
    .addColumn('publisher_id', 'integer', (c) => c.notNull().references('publishers.id').onDelete('cascade'))
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('taken_at', 'text', notNull)
    .addColumn('expired_at', 'text', notNull)
    .execute();
  // One row per take: a sweep that runs twice (or on two instances) cannot tell the same expiry twice.
  await db.schema.createIndex('request_take_expiries_one').unique().on('request_take_expiries').columns(['request_id', 'taken_at']).execute();
  await db.schema.createIndex('request_take_expiries_account').on('request_take_expiries').columns(['account_id', 'id']).execute();
  await db.schema.createIndex('request_take_expiries_publisher').on('request_take_expiries').columns(['publisher_id', 'id']).execute();
  await db.schema.createIndex('requests_taken').on('requests').columns(['status', 'taken_at']).execute();
  await db
    .deleteFrom('publisher_invitations')
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('publisher_members as m')
            .select(sql`1`.as('one'))
            .whereRef('m.publisher_id', '=', 'publisher_invitations.publisher_id')
            .whereRef('m.account_id', '=', 'publisher_invitations.invited_by')
            .where('m.role', '=', 'owner'),
        ),
      ),
    )
    .execute();
}
