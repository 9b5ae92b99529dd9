// The authorization server's rules (docs/decisions/oauth-authorization-server.md): which scopes exist, what a
// person approves (a connection: one grant, one publication), and who an access token speaks for.
import { DomainError, forbidden, unauthorized } from '../errors.js';
import type { Deps } from '../deps.js';
import { requireMember } from '../publishers/publisher.service.js';
import * as store from './oauth.store.js';

/** The scopes, each a narrowing of what a key of the matching kind may do (SPEC §5). */
export const PUBLICATION_SCOPES = ['pages:write', 'requests', 'decisions', 'webhooks'] as const;
export const SCOPES = [...PUBLICATION_SCOPES, 'profile:read'] as const;
export type Scope = (typeof SCOPES)[number];

export const isScope = (s: string): s is Scope => (SCOPES as readonly string[]).includes(s);
export const needsPublication = (scopes: readonly string[]) => scopes.some((s) => (PUBLICATION_SCOPES as readonly string[]).includes(s));

export interface ApprovedConnection {
  grantId: string;
  accountId: number;
  client: { clientId: string; name: string; host: string };
  /** The publication chosen on the consent page (a slug), when a publication scope is approved. */
  publication: string | null;
  scopes: Scope[];
}

/** Records what the person approved; a publication scope needs a publication the person is a member of. */
export async function recordConnection(deps: Deps, input: ApprovedConnection): Promise<void> {
  let publisherId: number | null = null;
  if (needsPublication(input.scopes)) {
    if (!input.publication) throw new DomainError('missing_parameter', 'Choose the publication this site acts for', [{ field: 'publication', message: 'is required' }]);
    publisherId = (await requireMember(deps, input.accountId, input.publication)).publisher.id;
  }
  await store.insertConnection(deps.db, {
    grant_id: input.grantId,
    account_id: input.accountId,
    client_id: input.client.clientId,
    client_name: input.client.name,
    client_host: input.client.host,
    publisher_id: publisherId,
    scopes: input.scopes.join(' '),
    created_at: deps.clock.now().toISOString(),
  });
}

export interface TokenCaller {
  accountId: number;
  connectionId: number;
  publisherId: number | null;
  scopes: ReadonlySet<string>;
}

/** Who an access token speaks for: its connection must stand and the token must be live (checked on every call). */
export async function authenticateAccessToken(deps: Deps, token: string): Promise<TokenCaller> {
  const record = await store.findAccessToken(deps.db, token);
  // The provider stamps expiry with the system clock; its tokens are judged by the same one.
  if (!record || !record.grant_id || (record.expires_at !== null && record.expires_at <= new Date().toISOString())) {
    throw unauthorized('The access token is unknown, revoked or expired; refresh it or connect again');
  }
  const connection = await store.findConnectionByGrant(deps.db, record.grant_id);
  if (!connection || connection.revoked_at !== null) throw unauthorized('This site’s connection was revoked; connect again');
  const payload = JSON.parse(record.payload) as { scope?: string };
  const approved = new Set(connection.scopes.split(' '));
  const scopes = new Set((payload.scope ?? '').split(' ').filter((s) => approved.has(s)));
  await store.touchConnection(deps.db, connection.id, deps.clock.now().toISOString());
  return { accountId: connection.account_id, connectionId: connection.id, publisherId: connection.publisher_id, scopes };
}

export const listConnections = (deps: Deps, accountId: number) => store.listConnections(deps.db, accountId);

/** Ends a connection at once: its tokens and codes are deleted with its grant, so the next call fails. */
export async function revokeConnection(deps: Deps, accountId: number, id: number): Promise<void> {
  const grantId = await store.revokeConnection(deps.db, accountId, id, deps.clock.now().toISOString());
  if (grantId === null) throw forbidden('No such connection on this account');
  await store.deleteGrant(deps.db, grantId);
}
