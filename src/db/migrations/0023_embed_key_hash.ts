// The browser extension's private lookup (docs/extension.md): each page's embed key hashed (SHA-256, hex), indexed so
// that a bucket (every hash under a short prefix) is one range scan. Backfilled for existing pages; new pages get it
// when they are inserted (page.store.ts insertPages).
import { createHash } from 'node:crypto';
import type { AnyDb } from './helpers.js';

export async function up(db: AnyDb): Promise<void> {
  await db.schema.alterTable('pages').addColumn('embed_key_hash', 'text').execute();
  await db.schema.createIndex('pages_embed_key_hash').on('pages').column('embed_key_hash').execute();
  let after = 0;
  for (;;) {
    const rows = await db.selectFrom('pages').select(['id', 'embed_key']).where('id', '>', after).orderBy('id').limit(500).execute();
    if (rows.length === 0) break;
    for (const r of rows) {
      const hash = createHash('sha256').update(r.embed_key as string, 'utf8').digest('hex');
      await db.updateTable('pages').set({ embed_key_hash: hash }).where('id', '=', r.id as number).execute();
    }
    after = rows[rows.length - 1]!.id as number;
  }
}
