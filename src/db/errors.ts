// Constraint violations look different on each driver; services ask one question.
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string } | null;
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE', 'SQLITE_BUSY']);
const UNAVAILABLE_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|not queryable|Connection refused|the database system is (starting up|shutting down)/i;

/**
 * The database cannot be reached right now (PostgreSQL stopped or restarting, the network cut, SQLite locked past
 * its busy timeout or answering one of its extended busy codes, SQLITE_BUSY_SNAPSHOT and the like): the request may
 * succeed if retried shortly, so it is a 503, not a 500. PostgreSQL classes 08 (connection exception) and 57P
 * (operator intervention: shutdown, cannot connect now) and 53300 (too many connections) count; so do socket errors
 * and pg's own connection messages.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown; errors?: unknown[] } | null;
  if (!e || typeof e !== 'object') return false;
  const code = typeof e.code === 'string' ? e.code : '';
  if (UNAVAILABLE_CODES.has(code) || code.startsWith('SQLITE_BUSY_') || code.startsWith('08') || code.startsWith('57P') || code === '53300') return true;
  if (typeof e.message === 'string' && UNAVAILABLE_MESSAGES.test(e.message)) return true;
  // Node reports a refused connection to a name with several addresses as an AggregateError of the attempts.
  return Array.isArray(e.errors) && e.errors.some((x) => isDatabaseUnavailable(x));
}
