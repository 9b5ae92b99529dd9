// Each session remembers which browser and system it was opened from ("Firefox on Linux"), so a person can tell
// their sessions apart on /me/security and end one they do not know. Only that summary is kept, never the whole
// User-Agent; erasure deletes sessions with the account. Sessions opened before have none.
import type { AnyDb } from './helpers.js';

export async function up(db: AnyDb): Promise<void> {
  await db.schema.alterTable('sessions').addColumn('device', 'text').execute();
}
