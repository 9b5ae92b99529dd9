// Liveness and readiness, for a load balancer and an orchestrator.
//   /livez   the process answers HTTP (no dependency is checked: restarting a process does not fix its database).
//   /readyz  whether this instance should get traffic: the database answers (else 503, with the reason); Redis
//            when set, and the webhook relay's backlog, are reported and mark the answer "degraded" without
//            failing it: Redis or a slow relay are shared by every instance, and failing readiness for them would
//            take all instances out of the balancer at once while each one can still answer.
import { sql } from 'kysely';
import type { Deps } from '../domain/deps.js';
import { outboxBacklog } from '../domain/webhooks/webhook.store.js';

export interface Check {
  status: 'ok' | 'degraded' | 'failing';
  detail: string;
}

export interface Readiness {
  status: 'ok' | 'degraded' | 'failing';
  checks: Record<string, Check>;
}

/** An outbox event older than this that is still not fanned out means the relay is stuck or far behind. */
export const RELAY_LAG_DEGRADED_S = 60;
const DB_TIMEOUT_MS = 2000;

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/** The reason a database error gives, without anything of the connection string. */
function reason(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown };
  const code = typeof e?.code === 'string' ? `${e.code}: ` : '';
  const message = typeof e?.message === 'string' ? e.message.replace(/\w+:\/\/\S+/g, '<url>').slice(0, 200) : 'unknown error';
  return `${code}${message}`;
}

export async function readiness(deps: Deps): Promise<Readiness> {
  const checks: Record<string, Check> = {};
  const database = withTimeout(sql`select 1`.execute(deps.db), DB_TIMEOUT_MS, 'the database').then(
    (): Check => ({ status: 'ok', detail: deps.dialect }),
    (err: unknown): Check => ({ status: 'failing', detail: `${deps.dialect} unreachable (${reason(err)})` }),
  );
  const redis = deps.rateLimiter.health?.().then(
    (h): Check => ({ status: h.shared ? 'ok' : 'degraded', detail: h.detail }),
    (err: unknown): Check => ({ status: 'degraded', detail: reason(err) }),
  );
  const relay = withTimeout(outboxBacklog(deps.db), DB_TIMEOUT_MS, 'the database').then(
    (b): Check => {
      const lagS = b.oldestAt ? Math.max(0, (deps.clock.now().getTime() - Date.parse(b.oldestAt)) / 1000) : 0;
      const detail = `${b.events}${b.events >= 10_000 ? '+' : ''} events waiting; oldest ${Math.round(lagS)} s`;
      return { status: lagS > RELAY_LAG_DEGRADED_S ? 'degraded' : 'ok', detail };
    },
    (err: unknown): Check => ({ status: 'failing', detail: `backlog unknown (${reason(err)})` }),
  );
  checks.database = await database;
  if (redis) checks.redis = await redis;
  checks.relay = await relay;
  // Only the database decides readiness; the relay's check fails with it (it reads the same database).
  const status = checks.database.status === 'failing' ? 'failing' : Object.values(checks).some((c) => c.status !== 'ok') ? 'degraded' : 'ok';
  return { status, checks };
}
