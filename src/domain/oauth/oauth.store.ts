// All SQL of the authorization server (docs/decisions/oauth-authorization-server.md): oidc-provider's models, as its
// adapter interface asks for them, and the connections people approved.
import type { Db } from '../../db/schema.js';
import { sha256 } from '../tokens.js';

/** What oidc-provider stores for a model: a JSON object of its own making. */
export type ProviderPayload = Record<string, unknown> & { grantId?: string; uid?: string; jti?: string; consumed?: number };

// The provider stamps and checks expiry with the system clock (it takes no other), so its records expire by it too.
const systemNow = () => new Date().toISOString();

/**
 * oidc-provider's adapter over our database: one instance per model. Ids are stored as their SHA-256 (a code's,
 * a token's or a session's id is its secret) and payloads without the `jti` that repeats it; `find` puts it back.
 */
export function providerAdapter(db: Db) {
  let lastSweep = 0;
  return class DatabaseAdapter {
    constructor(private readonly model: string) {}

    async upsert(id: string, payload: ProviderPayload, expiresIn?: number): Promise<void> {
      const { jti: _jti, ...rest } = payload;
      const row = {
        payload: JSON.stringify(rest),
        grant_id: typeof payload.grantId === 'string' ? payload.grantId : null,
        uid: typeof payload.uid === 'string' ? payload.uid : null,
        expires_at: typeof expiresIn === 'number' ? new Date(Date.now() + expiresIn * 1000).toISOString() : null,
      };
      await db
        .insertInto('oauth_records')
        .values({ model: this.model, id_hash: sha256(id), consumed_at: null, ...row })
        .onConflict((oc) => oc.columns(['model', 'id_hash']).doUpdateSet(row))
        .execute();
      // Expired records that are never read again (an abandoned interaction, a token nobody used) go here, at most
      // once a minute per process: no job runner needed where the server is on, and nothing accrues where it is off.
      if (Date.now() - lastSweep >= SWEEP_EVERY_MS) {
        lastSweep = Date.now();
        await deleteExpiredRecords(db);
      }
    }

    async find(id: string): Promise<ProviderPayload | undefined> {
      const row = await db
        .selectFrom('oauth_records')
        .select(['payload', 'expires_at', 'consumed_at'])
        .where('model', '=', this.model)
        .where('id_hash', '=', sha256(id))
        .executeTakeFirst();
      if (row && expired(row)) {
        // Deleted on read; the rest by deleteExpiredRecords as records are written.
        await this.destroy(id);
        return undefined;
      }
      return row ? revive(row, id) : undefined;
    }

    async findByUid(uid: string): Promise<ProviderPayload | undefined> {
      const row = await db
        .selectFrom('oauth_records')
        .select(['payload', 'expires_at', 'consumed_at', 'id_hash'])
        .where('model', '=', this.model)
        .where('uid', '=', uid)
        .executeTakeFirst();
      // A session found by uid is handed back without its id: the provider reads only its payload here.
      return row ? revive(row, undefined) : undefined;
    }

    async findByUserCode(): Promise<undefined> {
      return undefined; // No device flow.
    }

    async consume(id: string): Promise<void> {
      await db
        .updateTable('oauth_records')
        .set({ consumed_at: systemNow() })
        .where('model', '=', this.model)
        .where('id_hash', '=', sha256(id))
        .execute();
    }

    async destroy(id: string): Promise<void> {
      await db.deleteFrom('oauth_records').where('model', '=', this.model).where('id_hash', '=', sha256(id)).execute();
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await deleteGrant(db, grantId);
    }
  };
}

const SWEEP_EVERY_MS = 60_000;
const expired = (row: { expires_at: string | null }) => row.expires_at !== null && row.expires_at <= systemNow();

/** Deletes every record past its expiry (the provider's own clock: systemNow); the number deleted. */
export async function deleteExpiredRecords(db: Db): Promise<number> {
  const r = await db.deleteFrom('oauth_records').where('expires_at', 'is not', null).where('expires_at', '<=', systemNow()).executeTakeFirst();
  return Number(r.numDeletedRows);
}

function revive(row: { payload: string; expires_at: string | null; consumed_at: string | null }, id: string | undefined): ProviderPayload | undefined {
  if (expired(row)) return undefined;
  const payload = JSON.parse(row.payload) as ProviderPayload;
  if (id !== undefined) payload.jti = id;
  if (row.consumed_at !== null) payload.consumed = Math.floor(Date.parse(row.consumed_at) / 1000);
  return payload;
}

/** An access token's stored record, by the token's value: what the caller resolution needs. */
export async function findAccessToken(db: Db, token: string) {
  return db
    .selectFrom('oauth_records')
    .select(['payload', 'expires_at', 'grant_id'])
    .where('model', '=', 'AccessToken')
    .where('id_hash', '=', sha256(token))
    .executeTakeFirst();
}

export interface NewConnection {
  grant_id: string;
  account_id: number;
  client_id: string;
  client_name: string;
  client_host: string;
  publisher_id: number | null;
  scopes: string;
  created_at: string;
}

export async function insertConnection(db: Db, row: NewConnection): Promise<void> {
  await db.insertInto('oauth_connections').values(row).execute();
}

export async function findConnectionByGrant(db: Db, grantId: string) {
  return db.selectFrom('oauth_connections').selectAll().where('grant_id', '=', grantId).executeTakeFirst();
}

/** A person's connections that still act, newest first, with the publication's name. */
export async function listConnections(db: Db, accountId: number) {
  return db
    .selectFrom('oauth_connections as c')
    .leftJoin('publishers as p', 'p.id', 'c.publisher_id')
    .select(['c.id', 'c.client_name', 'c.client_host', 'c.scopes', 'c.created_at', 'c.last_used_at', 'p.slug as publisher_slug', 'p.name as publisher_name'])
    .where('c.account_id', '=', accountId)
    .where('c.revoked_at', 'is', null)
    .orderBy('c.id', 'desc')
    .execute();
}

/** Revokes one of the account's connections; its grant, or null when it is not the account's or already gone. */
export async function revokeConnection(db: Db, accountId: number, id: number, at: string): Promise<string | null> {
  const row = await db
    .updateTable('oauth_connections')
    .set({ revoked_at: at })
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
    .returning('grant_id')
    .executeTakeFirst();
  return row?.grant_id ?? null;
}

/** Marks a connection used, at most once a minute, so a busy site does not write on every call. */
export async function touchConnection(db: Db, id: number, at: string): Promise<void> {
  const minuteAgo = new Date(Date.parse(at) - 60_000).toISOString();
  await db
    .updateTable('oauth_connections')
    .set({ last_used_at: at })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', minuteAgo)]))
    .execute();
}


/** Deletes a grant and every code and token issued under it. */
export async function deleteGrant(db: Db, grantId: string): Promise<void> {
  await db.deleteFrom('oauth_records').where((eb) => eb.or([eb('grant_id', '=', grantId), eb.and([eb('model', '=', 'Grant'), eb('id_hash', '=', sha256(grantId))])])).execute();
}
