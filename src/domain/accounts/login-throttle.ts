// Log-in throttling (SPEC §5): failures are counted per account *and address together*, and per
// address, never per account alone, so nobody can lock a person out from elsewhere. Past a few free failures each
// key waits a delay that doubles with every further failure (1 s, 2 s, 4 s… up to 15 minutes). A success clears
// the pair; the address's count only fades (24 hours without a failure), so an attacker cannot wipe it by logging
// into an account of their own between guesses. Rows live in the database, shared by every instance.
import { sql } from 'kysely';
import { rateLimited } from '../errors.js';
import type { Deps } from '../deps.js';
import { sha256 } from '../tokens.js';

interface Policy {
  free: number;
  maxDelaySeconds: number;
}
export const PAIR_POLICY: Policy = { free: 5, maxDelaySeconds: 900 };
export const ADDRESS_POLICY: Policy = { free: 20, maxDelaySeconds: 900 };
/**
 * Log-ins of one address in flight at once in this process; one more is 429 before any work. A person has one,
 * two with a double click; without a bound, a burst of concurrent guesses would all pass the throttle before the
 * first of them was counted.
 */
export const ATTEMPTS_IN_FLIGHT_PER_ADDRESS = 4;
const FORGET_AFTER_MS = 24 * 3600 * 1000;

export interface ThrottleKeys {
  pair: string;
  address: string;
}

export const throttleKeys = (email: string, ip: string): ThrottleKeys => ({
  pair: `pair:${sha256(email)}:${ip}`,
  address: `ip:${ip}`,
});

export function delaySeconds(failures: number, policy: Policy): number {
  if (failures < policy.free) return 0;
  return Math.min(2 ** (failures - policy.free), policy.maxDelaySeconds);
}

/**
 * 429 with the seconds to wait when either key is still waiting; otherwise the address's recent failures (which rank
 * its log-in behind those of addresses that have failed less: Passwords).
 */
export async function checkThrottle(deps: Deps, keys: ThrottleKeys): Promise<{ addressFailures: number }> {
  const now = deps.clock.now();
  const rows = await deps.db
    .selectFrom('login_throttle')
    .select(['key', 'failures', 'last_failure_at', 'locked_until'])
    .where('key', 'in', [keys.pair, keys.address])
    .execute();
  const nowIso = now.toISOString();
  const locked = rows.filter((r) => r.locked_until !== null && r.locked_until > nowIso);
  if (locked.length > 0) {
    const until = Math.max(...locked.map((r) => Date.parse(r.locked_until!)));
    throw rateLimited(Math.max(1, Math.ceil((until - now.getTime()) / 1000)));
  }
  const stale = new Date(now.getTime() - FORGET_AFTER_MS).toISOString();
  const address = rows.find((r) => r.key === keys.address);
  return { addressFailures: address && address.last_failure_at >= stale ? Number(address.failures) : 0 };
}

async function countFailure(deps: Deps, key: string, policy: Policy): Promise<void> {
  const now = deps.clock.now();
  const nowIso = now.toISOString();
  const stale = new Date(now.getTime() - FORGET_AFTER_MS).toISOString();
  const row = await deps.db
    .insertInto('login_throttle')
    .values({ key, failures: 1, last_failure_at: nowIso, locked_until: null })
    .onConflict((oc) =>
      oc.column('key').doUpdateSet({
        failures: sql<number>`case when login_throttle.last_failure_at < ${stale} then 1 else login_throttle.failures + 1 end`,
        last_failure_at: nowIso,
      }),
    )
    .returning('failures')
    .executeTakeFirstOrThrow();
  const delay = delaySeconds(Number(row.failures), policy);
  if (delay > 0) {
    await deps.db
      .updateTable('login_throttle')
      .set({ locked_until: new Date(now.getTime() + delay * 1000).toISOString() })
      .where('key', '=', key)
      .execute();
  }
  // Forgotten rows go, a few at a time, so the table stays the size of recent trouble.
  await deps.db.deleteFrom('login_throttle').where('last_failure_at', '<', stale).execute();
}

export async function recordFailure(deps: Deps, keys: ThrottleKeys): Promise<void> {
  await countFailure(deps, keys.pair, PAIR_POLICY);
  await countFailure(deps, keys.address, ADDRESS_POLICY);
}

export async function recordSuccess(deps: Deps, keys: ThrottleKeys): Promise<void> {
  await deps.db.deleteFrom('login_throttle').where('key', '=', keys.pair).execute();
}
