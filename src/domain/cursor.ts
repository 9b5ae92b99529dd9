// Cursors of the lists that page by position rather than by number (Stripe's `starting_after`, GitHub's `after`):
// what the last item of one page was, so the next begins just after it whatever was added meanwhile. Opaque to
// clients: base64url of a small JSON object, read back only as the shape the list expects.
import { invalid } from './errors.js';

export function encodeCursor(position: Record<string, string | number>): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

/** The position a cursor holds, when it has the shape `read` accepts; otherwise a 400 naming `field`. */
export function decodeCursor<T>(cursor: string, read: (value: Record<string, unknown>) => T | null, field = 'after'): T {
  let value: unknown = null;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    value = null;
  }
  const position = value !== null && typeof value === 'object' && !Array.isArray(value) ? read(value as Record<string, unknown>) : null;
  if (position === null) throw invalid(field, 'is not a cursor this list gave (pass meta.next_cursor as it came)');
  return position;
}

/** One page of `limit` items from `limit + 1` rows, and the cursor after its last item when there are more. */
export function pageOf<R>(rows: R[], limit: number, cursorOf: (last: R) => Record<string, string | number>) {
  const hasMore = rows.length > limit;
  const items = hasMore ? rows.slice(0, limit) : rows;
  return { items, hasMore, nextCursor: hasMore ? encodeCursor(cursorOf(items.at(-1)!)) : null };
}
