// What one entry of the change log is, before it is numbered: on its own so that the modules change-log.ts calls
// while appending (own-webhooks.ts) can name it without importing change-log.ts back.
import type { ChangeKind } from '../../db/vocabulary.js';

/** What an entry touches; the record cache drops the answers that depend on these. */
export interface ChangeIds {
  pageId?: number | null;
  accountId?: number | null;
  publisherId?: number | null;
  panelId?: string | null;
}

export interface Change {
  kind: ChangeKind;
  ids: ChangeIds;
  /** The public fields of the entry (never a private one); `seq`, `kind` and `created_at` are added here. */
  data: Record<string, unknown>;
  now: string;
}
