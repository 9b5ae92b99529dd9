// A CMS user (a WordPress author, say) linked to a Credence account by that person's own answer: the publication
// asks, the person confirms in Credence, and only then does the CMS name them as the author of that user's posts.
// One row per publication, site, CMS user and person, whatever its state: a declined or ended link is why the
// publication cannot ask that person again for that user (the person alone can change their answer).
import type { Dialect } from '../client.js';
import { type AnyDb, notNull, withId } from './helpers.js';

export async function up(db: AnyDb, dialect: Dialect): Promise<void> {
  await withId(db.schema.createTable('author_links'), dialect)
    .addColumn('publisher_id', 'integer', (c) => c.notNull().references('publishers.id').onDelete('cascade'))
    // Erasing the account deletes its links (ON DELETE CASCADE), as it does its claims.
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    // The site's origin (`https://news.example`), under one of the publication's verified domains when asked.
    .addColumn('site', 'text', notNull)
    // The CMS's own id of its user, and the name it shows them by: what the person needs to recognise themselves.
    .addColumn('user_id', 'text', notNull)
    .addColumn('display_name', 'text', notNull)
    // `pending`, `confirmed`, `declined`, `ended` (the person unlinked it).
    .addColumn('state', 'text', notNull)
    .addColumn('created_at', 'text', notNull)
    .addColumn('decided_at', 'text')
    .execute();
  await db.schema.createIndex('author_links_one').unique().on('author_links').columns(['publisher_id', 'site', 'user_id', 'account_id']).execute();
  await db.schema.createIndex('author_links_person').on('author_links').columns(['account_id', 'state', 'id']).execute();
  await db.schema.createIndex('author_links_publisher').on('author_links').columns(['publisher_id', 'state', 'id']).execute();
}
