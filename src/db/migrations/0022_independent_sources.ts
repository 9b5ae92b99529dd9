// What makes two publications one source of a person's reputation (docs/decisions/reputation-independent-sources.md):
// an account that is or ever was a member of both, or verified domains under one registrable domain (the Public
// Suffix List's, through tldts). `publisher_member_history` keeps every membership ever made, so leaving a
// publication or handing it over does not make it independent; `domains.registrable_domain` keeps each claimed
// domain's registrable domain. Both are filled here from what is stored.
import { getDomain } from 'tldts';
import type { AnyDb } from './helpers.js';

export async function up(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('publisher_member_history')
    .addColumn('publisher_id', 'integer', (c) => c.notNull().references('publishers.id').onDelete('cascade'))
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('since', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('publisher_member_history_pk', ['publisher_id', 'account_id'])
    .execute();
  await db.schema.createIndex('publisher_member_history_account').on('publisher_member_history').columns(['account_id', 'publisher_id']).execute();
  await db
    .insertInto('publisher_member_history')
    .columns(['publisher_id', 'account_id', 'since'])
    .expression(db.selectFrom('publisher_members').select(['publisher_id', 'account_id', 'created_at']))
    .execute();

  await db.schema.alterTable('domains').addColumn('registrable_domain', 'text').execute();
  for (const d of await db.selectFrom('domains').select(['id', 'domain']).execute()) {
    const domain = d.domain as string;
    await db
      .updateTable('domains')
      .set({ registrable_domain: getDomain(domain, { allowPrivateDomains: true }) ?? domain })
      .where('id', '=', d.id)
      .execute();
  }
  await db.schema.createIndex('domains_registrable').on('domains').columns(['registrable_domain', 'publisher_id']).execute();
}
