// The tables as Kysely sees them. Timestamps are ISO 8601 UTC strings (`2026-11-21T10:00:00.000Z`) on both
// databases: one representation, sortable as text, no driver-specific Date handling (docs/decisions.md).
// Booleans are integers 0/1 for the same reason.
import type { Generated, Insertable, Selectable } from 'kysely';

export interface AccountsTable {
  id: Generated<number>;
  email: string;
  username: string;
  name: string;
  summary: string;
  /** JSON array of topic strings the contributor declares. */
  topics: string;
  password_hash: string;
  is_admin: Generated<number>;
  /** Reputation, recomputed on every decision (SPEC §13). */
  trust_score: Generated<number>;
  contribution_score: Generated<number>;
  accepted_count: Generated<number>;
  rejected_count: Generated<number>;
  level: Generated<string>;
  created_at: string;
  updated_at: string;
}

export interface SessionsTable {
  id: Generated<number>;
  account_id: number;
  token_hash: string;
  created_at: string;
  expires_at: string;
  ended_at: string | null;
}

export interface PublishersTable {
  id: Generated<number>;
  slug: string;
  name: string;
  created_at: string;
}

export interface PublisherMembersTable {
  publisher_id: number;
  account_id: number;
  role: 'owner' | 'editor';
  created_at: string;
}

export interface DomainsTable {
  id: Generated<number>;
  publisher_id: number;
  domain: string;
  token: string;
  status: 'pending' | 'verified';
  verified_at: string | null;
  verified_by: 'dns' | 'file' | 'operator' | null;
  created_at: string;
}

export interface ApiKeysTable {
  id: Generated<number>;
  account_id: number;
  /** Set for a publisher key; null for a contributor key. Fixed at creation (SPEC §5). */
  publisher_id: number | null;
  name: string;
  key_hash: string;
  prefix: string;
  last4: string;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
}

export interface PagesTable {
  id: Generated<number>;
  publisher_id: number;
  url: string;
  lookup_key: string;
  embed_key: string;
  host: string;
  title: string;
  topic: string;
  created_at: string;
  updated_at: string;
}

export interface ContributionsTable {
  id: Generated<number>;
  page_id: number;
  account_id: number;
  role: string;
  summary: string;
  change_from: string | null;
  change_to: string | null;
  accepted_at: string;
  created_at: string;
}

export interface EventsTable {
  id: Generated<number>;
  type: string;
  publisher_id: number | null;
  page_id: number | null;
  /** The event's facts as JSON; each surface's presenter turns them into its payload. */
  payload: string;
  created_at: string;
}

export interface DB {
  accounts: AccountsTable;
  sessions: SessionsTable;
  publishers: PublishersTable;
  publisher_members: PublisherMembersTable;
  domains: DomainsTable;
  api_keys: ApiKeysTable;
  pages: PagesTable;
  contributions: ContributionsTable;
  events: EventsTable;
}

export type Account = Selectable<AccountsTable>;
export type Publisher = Selectable<PublishersTable>;
export type Domain = Selectable<DomainsTable>;
export type ApiKey = Selectable<ApiKeysTable>;
export type Page = Selectable<PagesTable>;
export type NewPage = Insertable<PagesTable>;
export type Contribution = Selectable<ContributionsTable>;
