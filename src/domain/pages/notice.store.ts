// All SQL about notices on pages.
import type { Db } from '../../db/schema.js';
import type { NoticeType } from '../../db/schema.js';
import type { Notice } from './notices.js';

const columns = ['id', 'page_id', 'type', 'notice_date', 'reason', 'notice_url', 'created_at', 'log_seq'] as const;

/** The notices of several pages, in any order (the record sorts them). */
export async function listNotices(db: Db, pageIds: number[]): Promise<(Notice & { page_id: number })[]> {
  const rows = [];
  for (let i = 0; i < pageIds.length; i += 500) {
    rows.push(...(await db.selectFrom('page_notices').select(columns).where('page_id', 'in', pageIds.slice(i, i + 500)).execute()));
  }
  return rows;
}

export async function insertNotice(
  db: Db,
  row: { page_id: number; publisher_id: number; type: NoticeType; notice_date: string; reason: string; notice_url: string | null; created_at: string; log_seq: number },
): Promise<number> {
  const r = await db.insertInto('page_notices').values(row).returning('id').executeTakeFirstOrThrow();
  return r.id;
}
