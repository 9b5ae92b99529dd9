// The account's own view of itself, its keys and its domains. The only place an email is ever shown.
import Type from 'typebox';
import type { ApiKeyRow } from '../../domain/api-keys/api-key.store.js';
import { keyStatus } from '../../domain/api-keys/api-key.service.js';
import type { Account, Domain } from '../../db/schema.js';
import { verificationInstructions } from '../../domain/publishers/publisher.service.js';
import { Nullable } from '../../http/schemas.js';
import type { MEMBER_ROLES } from '../../domain/vocabulary.js';
import { DomainMethod, DomainStatus, KeyKind, KeyStatus, MemberRole } from '../vocabulary.js';

export const AccountData = Type.Object({
  id: Type.Integer(),
  email: Type.String(),
  username: Type.String(),
  name: Type.String(),
  summary: Type.String(),
  topics: Type.Array(Type.String()),
  is_admin: Type.Boolean(),
  created_at: Type.String({ format: 'date-time' }),
  publishers: Type.Array(Type.Object({ slug: Type.String(), name: Type.String(), role: MemberRole })),
});

export function presentAccount(account: Account, memberships: { slug: string; name: string; role: (typeof MEMBER_ROLES)[number] }[]) {
  return {
    id: account.id,
    email: account.email,
    username: account.username,
    name: account.name,
    summary: account.summary,
    topics: JSON.parse(account.topics) as string[],
    is_admin: account.is_admin === 1,
    created_at: account.created_at,
    publishers: memberships.map((m) => ({ slug: m.slug, name: m.name, role: m.role })),
  };
}

export const ApiKeyData = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  prefix: Type.String({ description: 'The first characters of the key' }),
  last4: Type.String({ description: 'The last four characters of the key' }),
  kind: KeyKind,
  publisher: Nullable(Type.Object({ slug: Type.String(), name: Type.String() })),
  status: KeyStatus,
  created_at: Type.String({ format: 'date-time' }),
  expires_at: Nullable(Type.String({ format: 'date-time' })),
  revoked_at: Nullable(Type.String({ format: 'date-time' })),
  last_used_at: Nullable(Type.String({ format: 'date-time' })),
});

export function presentApiKey(key: ApiKeyRow, now: Date) {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    last4: key.last4,
    kind: key.publisher_id === null ? ('contributor' as const) : ('publisher' as const),
    publisher: key.publisher_slug && key.publisher_name ? { slug: key.publisher_slug, name: key.publisher_name } : null,
    status: keyStatus(key, now),
    created_at: key.created_at,
    expires_at: key.expires_at,
    revoked_at: key.revoked_at,
    last_used_at: key.last_used_at,
  };
}

export const DomainData = Type.Object({
  domain: Type.String(),
  status: DomainStatus,
  token: Type.String(),
  verified_at: Nullable(Type.String({ format: 'date-time' })),
  method: Nullable(DomainMethod),
  instructions: Type.Object({
    dns: Type.Object({ type: Type.Literal('TXT'), name: Type.String(), value: Type.String() }),
    file: Type.Object({ url: Type.String({ format: 'uri' }), content: Type.String() }),
  }),
});

export function presentDomain(d: Domain) {
  return {
    domain: d.domain,
    status: d.status,
    token: d.token,
    verified_at: d.verified_at,
    method: d.verified_by,
    instructions: verificationInstructions(d.domain, d.token),
  };
}
