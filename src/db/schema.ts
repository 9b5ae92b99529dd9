// The tables as Kysely sees them. Timestamps are ISO 8601 UTC strings (`2026-11-21T10:00:00.000Z`) on both
// databases: one representation, sortable as text, no driver-specific Date handling (docs/decisions/text-timestamps-and-integer-booleans.md).
// Booleans are integers 0/1 for the same reason.
import type { Generated, Insertable, Kysely, Selectable } from 'kysely';
import type { ChangeKind, DisabledReason, EventType, Level } from './vocabulary.js';

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
  level: Generated<Level>;
  created_at: string;
  updated_at: string;
  /** When the address was confirmed; null until then. */
  email_confirmed_at: string | null;
  /** The language of the account's mail. */
  locale: Generated<string>;
}

export interface SessionsTable {
  id: Generated<number>;
  account_id: number;
  token_hash: string;
  created_at: string;
  expires_at: string;
  ended_at: string | null;
  /** The browser and system it was opened from ("Firefox on Linux"), never the whole User-Agent; null before 0024. */
  device: string | null;
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

/**
 * Every membership ever made (one row per publication and account, kept when the person leaves): what links
 * publications into one source of reputation (docs/decisions/reputation-independent-sources.md).
 */
export interface PublisherMemberHistoryTable {
  publisher_id: number;
  account_id: number;
  since: string;
}

export interface LoginThrottleTable {
  key: string;
  failures: number;
  last_failure_at: string;
  locked_until: string | null;
}

export interface PublisherInvitationsTable {
  id: Generated<number>;
  publisher_id: number;
  account_id: number;
  role: 'owner' | 'editor';
  invited_by: number;
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
  /** The domain's registrable domain by the Public Suffix List (private suffixes included), or the domain itself. */
  registrable_domain: string | null;
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
  /** When the owner was told the key expires within 7 days. */
  expiry_notice_at: string | null;
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
  /** sha256 of the page's normalised text (docs/decisions/page-versions-and-drift.md), when known; never the text itself. */
  content_hash: string | null;
  content_seen_at: string | null;
  /** When the text last changed; null until it first does. */
  content_changed_at: string | null;
  /** SHA-256 (hex) of embed_key: the extension's private lookup asks by its first digits (docs/extension.md). */
  embed_key_hash: string | null;
}

/** What a contributor quoted from the page, and a fact check's claim and verdict (1-5). */
interface QuotedWork {
  quote_exact: string | null;
  quote_prefix: string | null;
  quote_suffix: string | null;
  claim: string | null;
  verdict: number | null;
}

export interface ContributionsTable extends QuotedWork {
  id: Generated<number>;
  page_id: number;
  account_id: number;
  role: WorkKind;
  summary: string;
  change_from: string | null;
  change_to: string | null;
  accepted_at: string;
  created_at: string;
  /** The accepted submission this record came from; null for authors named at registration. */
  submission_id: number | null;
  /** The page version (content hash) the work applies to; null while the service knows no version. */
  page_hash: string | null;
  /** When the page's text changed after this work; null while it has not. */
  page_changed_at: string | null;
  /** Corrections: 1 when the corrected text no longer appears on the page, 0 when it does, null when unknown. */
  correction_missing: number | null;
  /** The `changes` entry that published it (its index in the transparency log is log_seq − 1); null before the log. */
  log_seq: Generated<number | null>;
  /** Who said it in public: a publication naming an author, the person submitting work, an operator. */
  asserted_by: Generated<AssertedBy>;
  /** How the person agreed; `not_asked` only for authorships named before consent existed (migration 0013). */
  consent: Generated<Consent>;
}

export type AssertedBy = 'publisher' | 'contributor' | 'operator';
export type Consent = 'confirmed' | 'standing_permission' | 'submitted' | 'operator' | 'not_asked';
export type ClaimState = 'pending' | 'confirmed' | 'declined' | 'withdrawn';
export type ClaimPreference = 'permit' | 'refuse';

/** A publication naming a person as a page's author: said in public only once the person agrees. */
export interface AuthorClaimsTable {
  id: Generated<number>;
  page_id: number;
  publisher_id: number;
  account_id: number;
  state: ClaimState;
  created_at: string;
  decided_at: string | null;
}

export type AuthorLinkState = 'pending' | 'confirmed' | 'declined' | 'ended';

/** A CMS user a publication asks to name as one person; the person's own answer makes it a link (migration 0028). */
export interface AuthorLinksTable {
  id: Generated<number>;
  publisher_id: number;
  account_id: number;
  site: string;
  user_id: string;
  display_name: string;
  state: AuthorLinkState;
  created_at: string;
  decided_at: string | null;
}

/** A person's standing answer to one publication's claims. */
export interface ClaimPreferencesTable {
  account_id: number;
  publisher_id: number;
  preference: ClaimPreference;
  created_at: string;
}

/** A notice on a page: retraction, expression of concern, ...; never edited or deleted. */
export interface PageNoticesTable {
  id: Generated<number>;
  page_id: number;
  publisher_id: number;
  type: NoticeType;
  notice_date: string;
  reason: string;
  notice_url: string | null;
  created_at: string;
  log_seq: number | null;
}

export type NoticeType =
  | 'retraction'
  | 'partial_retraction'
  | 'expression_of_concern'
  | 'withdrawal'
  | 'removal'
  | 'clarification'
  | 'addendum'
  | 'reinstatement';

/** A contributor's declared interest; ended ones are kept for the proofs of work done while held. */
export interface DeclaredInterestsTable {
  id: Generated<number>;
  account_id: number;
  subject: InterestSubject;
  name: string;
  publisher_id: number | null;
  kind: InterestKind;
  note: string;
  declared_at: string;
  ended_at: string | null;
}

export type InterestSubject = 'organisation' | 'publication' | 'topic';
export type InterestKind = 'employment' | 'funding' | 'ownership' | 'personal';

/** The pages a panel statement version cites. */
export interface PanelSourcesTable {
  version_id: number;
  position: number;
  url: string;
  lookup_key: string;
}

export type PanelFlagReason = 'source_corrected' | 'source_retracted' | 'source_concern' | 'source_changed' | 'revisit_due';

/** A review flag on a panel statement version: a cited page moved after it was issued. */
export interface PanelFlagsTable {
  id: Generated<number>;
  version_id: number;
  reason: PanelFlagReason;
  source_url: string;
  page_id: number | null;
  link: string;
  flagged_at: string;
}

/** oidc-provider's models, as its adapter stores them (migration 0034); a secret id is kept as its SHA-256. */
export interface OauthRecordsTable {
  model: string;
  id_hash: string;
  /** The model's JSON, without a secret id's `jti`. */
  payload: string;
  grant_id: string | null;
  uid: string | null;
  expires_at: string | null;
  consumed_at: string | null;
}

/** What a person approved for a site through the authorization server: one row per grant (migration 0034). */
export interface OauthConnectionsTable {
  id: Generated<number>;
  grant_id: string;
  account_id: number;
  client_id: string;
  client_name: string;
  client_host: string;
  publisher_id: number | null;
  /** Space-separated. */
  scopes: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** Work whose person took their name back; never read by a public route. */
/** A verifiable credential issued for an accepted contribution (migration 0033, docs/credentials.md). */
export interface IssuedCredentialsTable {
  id: Generated<number>;
  account_id: number;
  contribution_id: number;
  /** `profile` or `email_hash`: what names the holder in the credential. */
  holder: string;
  /** The salt of the e-mail hash (`email_hash` only). */
  salt: string | null;
  /** Its place in the status lists (list = index / length, bit = index % length); never reused. */
  status_index: number;
  issued_at: string;
}

/** The next status index to allocate: one row. */
export interface CredentialStatusCounterTable {
  id: number;
  next_index: number;
}

export interface WithdrawnContributionsTable {
  id: number;
  page_id: number;
  account_id: number;
  role: WorkKind;
  accepted_at: string;
  withdrawn_at: string;
  log_seq: number | null;
}

export type WorkKind = 'review' | 'fact_check' | 'edit' | 'correction' | 'source' | 'author';

export interface RequestsTable {
  id: Generated<number>;
  publisher_id: number;
  page_id: number;
  kind: WorkKind;
  topic: string;
  title: string;
  brief: string;
  status: 'open' | 'taken' | 'fulfilled' | 'cancelled';
  created_by: number;
  taken_by: number | null;
  taken_at: string | null;
  created_at: string;
  updated_at: string;
}

/** A take that ran out without work: the request reopened; told to the specialist and the publisher. */
export interface RequestTakeExpiriesTable {
  id: Generated<number>;
  request_id: number;
  publisher_id: number;
  account_id: number;
  taken_at: string;
  expired_at: string;
}

export interface SubmissionsTable extends QuotedWork {
  id: Generated<number>;
  page_id: number;
  publisher_id: number;
  account_id: number;
  request_id: number | null;
  kind: WorkKind;
  summary: string;
  before_text: string | null;
  after_text: string | null;
  reason: string;
  /** JSON array of source URLs. */
  sources: string;
  status: 'pending' | 'accepted' | 'rejected' | 'withdrawn';
  decided_by: number | null;
  decided_at: string | null;
  decision_note: string | null;
  created_at: string;
  updated_at: string;
}

export interface AccountTopicsTable {
  account_id: number;
  topic: string;
  weight: number;
  accepted: number;
  authority: number;
}

export interface EventsTable {
  id: Generated<number>;
  type: string;
  publisher_id: number | null;
  page_id: number | null;
  /** The person the event concerns, for their own webhooks; null when it names nobody in particular. */
  account_id: Generated<number | null>;
  /** The event's facts as JSON; each surface's presenter turns them into its payload. */
  payload: string;
  created_at: string;
  /** When the webhook relay fanned the event out to its endpoints; null until then. */
  relayed_at: string | null;
}

/** An expert panel's statement (SPEC §14); `topic` and `updated_at` mirror its current version for listing. */
export interface PanelStatementsTable {
  id: Generated<number>;
  /** The public id, slug-like. */
  slug: string;
  topic: string;
  current_version: number;
  created_at: string;
  updated_at: string;
}

/** One issued version of a statement; never changed after it is written, except `status` when superseded. */
export interface PanelVersionsTable {
  id: Generated<number>;
  statement_id: number;
  version: number;
  status: 'issued' | 'superseded';
  topic: string;
  question: string;
  answer: string;
  certainty: string;
  vote_agree: number;
  vote_dissent: number;
  /** A date, YYYY-MM-DD. */
  revisit_by: string;
  /** JSON array of reopen triggers. */
  reopen_triggers: string;
  issued_at: string;
  /** The `changes` entry that published this version; null for versions issued before the log. */
  log_seq: Generated<number | null>;
}

export interface PanelEntriesTable {
  version_id: number;
  /** The panellist's place in the version's list, from 0. */
  position: number;
  name: string;
  role: string;
  vote: string;
  /** The panellist's account, when they have one. */
  account_id: number | null;
}

/** A webhook endpoint (SPEC §10). `events` is a JSON array of event names; booleans are 0/1. */
export interface WebhooksTable {
  id: Generated<number>;
  account_id: number;
  /** The publication whose events it receives; null for a person's own webhook (format `contributor`). */
  publisher_id: number | null;
  format: 'v1' | 'api_v1' | 'contributor';
  url: string;
  events: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
  enabled: Generated<number>;
  disabled_at: string | null;
  /** `failures` (20 in a row over at least 24 hours) or `owner`. */
  disabled_reason: DisabledReason | null;
  consecutive_failures: Generated<number>;
  /** When the current run of failed scheduled attempts began; null while the last one got through. */
  failing_since: string | null;
  last_attempt_at: string | null;
  last_success_at: string | null;
  last_failure_at: string | null;
  last_status_code: number | null;
  from_event_id: Generated<number>;
  /** When the head of the endpoint's queue is due; null when nothing is queued. */
  next_due_at: string | null;
  /** Grows with every new delivery, so a sender cannot clear `next_due_at` over one it did not see. */
  wake_seq: Generated<number>;
  lease_owner: string | null;
  lease_until: string | null;
  created_at: string;
  updated_at: string;
}

export type DeliveryStatus = 'pending' | 'held' | 'succeeded' | 'failed';

/** One event for one endpoint; `body` is the exact JSON sent on every attempt. */
export interface WebhookDeliveriesTable {
  id: Generated<number>;
  webhook_id: number;
  event_id: number;
  event_type: EventType;
  body: string;
  status: DeliveryStatus;
  attempts: Generated<number>;
  retry_step: Generated<number>;
  first_attempt_at: string | null;
  next_attempt_at: string;
  last_attempt_at: string | null;
  last_status_code: number | null;
  delivered_at: string | null;
  created_at: string;
  updated_at: string;
  /** 1 when the owner's replay queued it again; its attempts carry the replay header. */
  replay: Generated<number>;
}

export interface WebhookReplaysTable {
  id: Generated<number>;
  webhook_id: number;
  since: string;
  requested_at: string;
  done_at: string | null;
  events: number | null;
}

export interface WebhookAttemptsTable {
  id: Generated<number>;
  delivery_id: number;
  webhook_id: number;
  attempted_at: string;
  status_code: number | null;
  duration_ms: number;
  success: number;
  error: string | null;
  /** The first 1 KB of the answer, as text. */
  response_body: Generated<string>;
  manual: Generated<number>;
}

export interface WebhookRelayTable {
  name: string;
  updated_at: string;
}

/** Deliveries sent to one destination (registrable domain or address) in the minute `window_start`, all instances. */
export interface WebhookHostWindowsTable {
  host: string;
  window_start: string;
  sent: number;
  /** What the last take was granted, returned by its statement. */
  last_grant: number;
}

/** The change log: immutable, `seq` gapless from 1 in commit order; `body` is the entry's canonical JSON. */
export interface ChangesTable {
  seq: number;
  created_at: string;
  kind: ChangeKind;
  page_id: number | null;
  account_id: number | null;
  publisher_id: number | null;
  panel_id: string | null;
  body: string;
}

/**
 * The opening of a committed personal field of an entry: the key and the value (canonical JSON) that open
 * the commitment at `pointer` in entry `seq`, kept until the person it names (`account_id`) is erased.
 */
export interface ChangeOpeningsTable {
  seq: number;
  pointer: string;
  opening: string;
  value: string;
  /** The person it names (erasure forgets by it); null for free text that is no person slot. */
  account_id: number | null;
  /** What it opens, by reference (migration 0029): the object's kind and id, and its field (null: a whole person slot). */
  subject_kind: TextKind | null;
  subject_id: number | null;
  field: string | null;
}

/** The kinds of object whose free text the log commits to (domain/changes/withholding.ts). */
export type TextKind = 'page' | 'contribution' | 'notice' | 'profile' | 'panel';

/** Openings withheld by a decision: kept, read by no public route, for a restore until the appeal window closes. */
export interface WithheldOpeningsTable extends ChangeOpeningsTable {
  decision_id: number;
  withheld_at: string;
}

/** Clear text of an entry written before commitments, withheld by a decision: public reads serve the entry without it. */
export interface WithheldFieldsTable {
  seq: number;
  pointer: string;
  subject_kind: TextKind;
  subject_id: number;
  field: string;
  decision_id: number;
  withheld_at: string;
}

/**
 * An account an outbox event's payload names (its contributor, the taker of a request, the person it concerns):
 * erasure redacts the event, and the deliveries made from it, through these rows.
 */
export interface EventMentionsTable {
  event_id: number;
  account_id: number;
}

/** An account a mail message's facts name other than its recipient (who took a request, who invited): as above. */
export interface MailMentionsTable {
  mail_id: number;
  account_id: number;
}

/** A username that belonged to an erased account: SHA-256 of its lower case, so nobody else can take it. */
export interface RetiredUsernamesTable {
  username_hash: string;
  retired_at: string;
}

/** The erasure list: which accounts were erased and when, nothing personal; re-applied after a restore. */
export interface ErasuresTable {
  id: Generated<number>;
  account_id: number;
  /** The erased account's own created_at: with the id, it names the account without naming the person. */
  account_created_at: string;
  erased_at: string;
}

/** A complete subtree of the transparency log's Merkle tree (level 0: a leaf). */
export interface LogNodesTable {
  level: number;
  idx: number;
  hash: Buffer;
}

/** The one row saying how much of `changes` the tree holds. */
export interface LogStateTable {
  id: number;
  tree_size: number;
  root_hash: Buffer;
  updated_at: string;
}

/** A signed checkpoint (C2SP tlog-checkpoint note). */
export interface LogCheckpointsTable {
  id: Generated<number>;
  tree_size: number;
  root_hash: Buffer;
  /** The verifier key (note key format) of the key that signed it. */
  verifier_key: string;
  note: string;
  created_at: string;
}

/** A witness's cosignature on a checkpoint of this log. */
export interface LogCosignaturesTable {
  origin: string;
  tree_size: number;
  root_hash: Buffer;
  witness_key: string;
  /** The note signature line, without its newline. */
  line: string;
  signed_at: number;
  created_at: string;
}

/** The tree size a witness last cosigned for this log. */
export interface LogWitnessStateTable {
  witness_key: string;
  origin: string;
  tree_size: number;
  last_error: string | null;
  updated_at: string;
}

/** As a witness: the newest checkpoint cosigned for each log watched. */
export interface WitnessedLogsTable {
  origin: string;
  tree_size: number;
  root_hash: Buffer;
  note: string;
  updated_at: string;
}

/** The cache tier's purger: one row, id 1. */
export interface CachePurgerTable {
  id: number;
  holder: string | null;
  lease_until: string | null;
  /** Every change entry through this seq has been purged at every node. */
  seq: number;
}

export interface DB {
  accounts: AccountsTable;
  sessions: SessionsTable;
  publishers: PublishersTable;
  publisher_members: PublisherMembersTable;
  publisher_member_history: PublisherMemberHistoryTable;
  domains: DomainsTable;
  api_keys: ApiKeysTable;
  pages: PagesTable;
  contributions: ContributionsTable;
  author_claims: AuthorClaimsTable;
  claim_preferences: ClaimPreferencesTable;
  author_links: AuthorLinksTable;
  withdrawn_contributions: WithdrawnContributionsTable;
  issued_credentials: IssuedCredentialsTable;
  oauth_records: OauthRecordsTable;
  oauth_connections: OauthConnectionsTable;
  credential_status_counter: CredentialStatusCounterTable;
  page_notices: PageNoticesTable;
  declared_interests: DeclaredInterestsTable;
  panel_sources: PanelSourcesTable;
  panel_flags: PanelFlagsTable;
  webhook_replays: WebhookReplaysTable;
  events: EventsTable;
  event_mentions: EventMentionsTable;
  mail_mentions: MailMentionsTable;
  panel_statements: PanelStatementsTable;
  panel_versions: PanelVersionsTable;
  panel_entries: PanelEntriesTable;
  requests: RequestsTable;
  submissions: SubmissionsTable;
  account_topics: AccountTopicsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  webhook_relay: WebhookRelayTable;
  webhook_host_windows: WebhookHostWindowsTable;
  changes: ChangesTable;
  change_openings: ChangeOpeningsTable;
  withheld_openings: WithheldOpeningsTable;
  withheld_fields: WithheldFieldsTable;
  retired_usernames: RetiredUsernamesTable;
  erasures: ErasuresTable;
  log_nodes: LogNodesTable;
  log_state: LogStateTable;
  log_checkpoints: LogCheckpointsTable;
  log_cosignatures: LogCosignaturesTable;
  log_witness_state: LogWitnessStateTable;
  witnessed_logs: WitnessedLogsTable;
  login_throttle: LoginThrottleTable;
  username_holds: UsernameHoldsTable;
  mail_tokens: MailTokensTable;
  mail_outbox: MailOutboxTable;
  mail_preferences: MailPreferencesTable;
  publisher_invitations: PublisherInvitationsTable;
  request_take_expiries: RequestTakeExpiriesTable;
  cache_purger: CachePurgerTable;
  trusted_flaggers: TrustedFlaggersTable;
  moderation_decisions: ModerationDecisionsTable;
  reports: ReportsTable;
  appeals: AppealsTable;
  notifier_standing: NotifierStandingTable;
  account_suspensions: AccountSuspensionsTable;
  withheld_texts: WithheldTextsTable;
}

export type Account = Selectable<AccountsTable>;
export type Publisher = Selectable<PublishersTable>;
export type Domain = Selectable<DomainsTable>;
export type ApiKey = Selectable<ApiKeysTable>;
export type Page = Selectable<PagesTable>;
export type NewPage = Insertable<PagesTable>;
export type Contribution = Selectable<ContributionsTable>;

export interface UsernameHoldsTable {
  username: string;
  created_at: string;
}

export interface MailTokensTable {
  id: Generated<number>;
  account_id: number;
  /** `appeal`: a notifier without an account appeals a decision once (`email` names `appeal:<decision>:<report>`). */
  purpose: 'confirm' | 'reset' | 'unsubscribe' | 'appeal';
  token_hash: string;
  email: string | null;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface MailOutboxTable {
  id: Generated<number>;
  account_id: number;
  kind: string;
  to_address: string;
  locale: string;
  thread: string | null;
  facts: string;
  message_id: string;
  status: 'pending' | 'sent' | 'failed';
  attempts: Generated<number>;
  next_attempt_at: string;
  lease_owner: string | null;
  lease_until: string | null;
  last_error: string | null;
  created_at: string;
  sent_at: string | null;
}

export interface MailPreferencesTable {
  account_id: number;
  kind: string;
  updated_at: string;
}

/** The database as Kysely sees it: what every store takes. */
export type Db = Kysely<DB>;

// Reports, decisions and appeals (migration 0031, docs/trust-and-safety.md).
export interface TrustedFlaggersTable {
  account_id: number;
  organisation: string;
  added_by: number | null;
  created_at: string;
}

export interface ModerationDecisionsTable {
  id: Generated<number>;
  item_kind: string;
  item_id: number;
  field: string | null;
  type: string;
  category: string;
  ground: string;
  legal_reference: string | null;
  terms_clause: string | null;
  facts: string;
  automated: Generated<number>;
  operator_id: number;
  affected_account_id: number | null;
  page_id: number | null;
  appeal_of: number | null;
  decided_at: string;
  appeal_until: string | null;
  log_seq: number | null;
}

export interface ReportsTable {
  id: Generated<number>;
  reference: string;
  item_kind: string;
  item_id: number;
  field: string | null;
  category: string;
  explanation: string;
  notifier_name: string | null;
  notifier_email: string | null;
  notifier_account_id: number | null;
  source: string;
  good_faith: number;
  locale: string;
  status: string;
  decision_id: number | null;
  unfounded: Generated<number>;
  created_at: string;
  decided_at: string | null;
}

export interface AppealsTable {
  id: Generated<number>;
  decision_id: number;
  account_id: number | null;
  appellant: string;
  explanation: string;
  created_at: string;
  decided_by: number | null;
  decided_at: string | null;
  outcome: string | null;
  outcome_decision_id: number | null;
}

export interface NotifierStandingTable {
  notifier: string;
  unfounded: Generated<number>;
  warned_at: string | null;
  suspended_until: string | null;
  updated_at: string;
}

export interface AccountSuspensionsTable {
  account_id: number;
  decision_id: number;
  until: string;
}

export interface WithheldTextsTable {
  id: Generated<number>;
  decision_id: number;
  table_name: string;
  column_name: string;
  row_id: number;
  text: string;
  delete_after: string;
}
