// Every setting the service reads, in one schema. `main.ts` is the only caller of `loadConfig`; everything else
// receives the parsed `Config` as a dependency, so tests build their own without touching process.env.
import Type, { type Static } from 'typebox';
import Value from 'typebox/value';
import { parsePrivateKey, parseVerifierKey } from './domain/transparency/note.js';
import { parseCosignerKey } from './domain/transparency/cosignature.js';

const Bool = Type.Union([Type.Literal('true'), Type.Literal('false'), Type.Literal('1'), Type.Literal('0')]);

export const EnvSchema = Type.Object({
  // The port and interface to listen on. 127.0.0.1 by default so a laptop does not expose the service by accident.
  PORT: Type.Optional(Type.String({ pattern: '^[0-9]{1,5}$' })),
  HOST: Type.Optional(Type.String({ minLength: 1 })),
  // The public base URL: the root of record_url, profile_url, proof_url and embed.js. Behind a proxy it differs
  // from HOST:PORT, so it is its own setting.
  SITE_URL: Type.Optional(Type.String({ pattern: '^https?://' })),
  // Where the embedded SQLite database lives when DATABASE_URL is unset.
  DATA_DIR: Type.Optional(Type.String({ minLength: 1 })),
  // The erasure list: one JSON line per erased account (its id, its creation time, when), nothing
  // personal. Keep it apart from backups: after restoring one, `credence erasures:apply` (and every `serve` start)
  // erases again whoever the list names. DATA_DIR/erasures.jsonl by default.
  ERASURE_LIST: Type.Optional(Type.String({ minLength: 1 })),
  // PostgreSQL instead of the embedded database: needed to run more than one instance.
  DATABASE_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  // Redis shares rate-limit buckets and cache invalidation across instances; without it both live in memory.
  REDIS_URL: Type.Optional(Type.String({ pattern: '^rediss?://' })),
  // Refuse plain HTTP with 403 https_required. Defaults to on in production.
  REQUIRE_HTTPS: Type.Optional(Bool),
  // Believe X-Forwarded-* headers from these proxies: "true", a hop count, or a comma list of addresses/CIDRs.
  TRUST_PROXY: Type.Optional(Type.String()),
  // Allow webhook targets (and domain checks) on private addresses, and plain-http webhook URLs: a receiver on a
  // developer's machine. Local development and tests only.
  WEBHOOK_ALLOW_PRIVATE: Type.Optional(Bool),
  // Callers (addresses or CIDRs, comma separated) that skip rate limits: a trusted CMS backend, or a benchmark.
  RATE_LIMIT_ALLOWLIST: Type.Optional(Type.String()),
  // /api/v1 callers without a key, per IP: "capacity/rate", e.g. "60/1". SPEC §7 leaves this configurable.
  API_ANON_RATE_LIMIT: Type.Optional(Type.String({ pattern: '^[0-9]+/[0-9]+(\\.[0-9]+)?$' })),
  // Each account's own bucket on each surface, spent by every request of its keys and sessions beside the key's own:
  // this many times a key's bucket (capacity and rate). Without it an account multiplied its limit by making keys.
  ACCOUNT_RATE_LIMIT_MULTIPLE: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,3}$' })),
  // Active (not revoked, not expired) API keys one account may hold; one more is refused with 409.
  API_KEYS_PER_ACCOUNT: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,5}$' })),
  // Webhooks one account may have registered, and webhooks one publication may have (whoever registered them); one
  // more is refused with 409. Every event goes to every endpoint that wants it, so endpoints multiply deliveries.
  WEBHOOKS_PER_ACCOUNT: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,5}$' })),
  WEBHOOKS_PER_PUBLICATION: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,5}$' })),
  // Webhook deliveries sent to one destination (a URL's registrable domain, or its address) in one minute, by all
  // instances together (counted in the database). What is over waits for the next minute, in order: the service
  // cannot be made to flood a host, whatever number of endpoints and events point at it.
  WEBHOOK_HOST_DELIVERIES_PER_MINUTE: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,6}$' })),
  // Publications one account may own at once (creating one, or becoming an owner by invitation, promotion or
  // transfer); one more is refused with 409. Owning many publications buys no reputation (publications sharing an
  // owner or member are one source), and the cap bounds how far one person's publications reach.
  PUBLICATIONS_OWNED_PER_ACCOUNT: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,5}$' })),
  // Requests one account may hold at once (taken, work pending on them included: a place frees when the publisher
  // decides the work, or the take is released, expires or is cancelled); one more take is refused with 409. Without
  // a cap one fresh account could take every open request of the marketplace.
  REQUESTS_HELD_PER_ACCOUNT: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,5}$' })),
  // Author claims one publication may have waiting on one person at once, and make in a day: naming
  // someone sends them a claim to answer, and a publication must not flood anyone's list. Past either, the naming
  // is answered `limited` and nothing is made.
  CLAIMS_PENDING_PER_PERSON: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,5}$' })),
  CLAIMS_PER_PUBLICATION_PER_DAY: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,6}$' })),
  // Link requests (a CMS user to be named as a person) one publication may have waiting in all, and waiting on one
  // person: each asks someone to answer, by mail too, so a publication must not be able to flood anyone. Past
  // either, one more is refused with 409 until people answer. Per person it is counted per publication, so one
  // publication cannot use up a person's room and keep the others from asking.
  AUTHOR_LINKS_PENDING_PER_PUBLICATION: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,5}$' })),
  AUTHOR_LINKS_PENDING_PER_PERSON: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,5}$' })),
  // Seconds an OAuth access token lives (docs/decisions/oauth-authorization-server.md): short, since a site renews it
  // with its refresh token, and an opaque token is looked up on every call anyway so revoking stops it at once.
  OAUTH_ACCESS_TOKEN_TTL_SECONDS: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{1,4}$' })),
  // The OAuth authorization server is not complete (no consent pages yet, so no token can be had, and a token is not
  // yet a caller), so it is off unless asked for: off, none of its routes or metadata addresses exist (404).
  OAUTH_ENABLED: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')])),
  // The authorization server's keys, as JSON {"jwks":{"keys":[private JWK]},"cookieKeys":["…"]}: every instance needs
  // the same ones. Unset, made at first start in DATA_DIR (oauth-keys.json, mode 0600), as the log's signing key is;
  // never oidc-provider's built-in development keys.
  OAUTH_KEYS: Type.Optional(Type.String({ minLength: 2 })),
  // Hours a take lasts without submitted work; then the request reopens and the specialist and publisher are told.
  REQUEST_TAKE_HOURS: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,5}$' })),
  // Prometheus metrics are never public by default. METRICS_PORT serves /metrics on a listener of its own (on
  // METRICS_HOST, loopback unless told), for a scraper on a private network; METRICS_TOKEN serves /metrics on the
  // main port to callers sending it as a bearer token. Neither set: no metrics endpoint.
  METRICS_PORT: Type.Optional(Type.String({ pattern: '^[0-9]{1,5}$' })),
  METRICS_HOST: Type.Optional(Type.String({ minLength: 1 })),
  METRICS_TOKEN: Type.Optional(Type.String({ minLength: 16 })),
  // Processes serving the port (node:cluster): a number, or "auto" for one per core. 1 by default.
  WORKERS: Type.Optional(Type.String({ pattern: '^([0-9]{1,3}|auto)$' })),
  // Seconds a SIGTERM waits for requests in flight and webhook attempts under way before the process exits.
  SHUTDOWN_TIMEOUT: Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$' })),
  // How many finished answers and records the in-memory record cache keeps (least recently used dropped first).
  // Memory grows with it (docs/performance.md states the resident size at 100,000 pages); size it to the pages read often.
  // Each cached route remembers as many request lines, to answer them again before validation (http/request-lines.ts).
  RECORD_CACHE_ENTRIES: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,8}$' })),
  // Live change-feed streams (Server-Sent Events on GET /v1/changes and /api/v1/changes) one caller may hold open at
  // once in this process: against its address and, when signed in (a key or a session), its account too. Each open stream holds
  // a socket and a share of every change's fan-out, so one caller must not hold them all.
  FEED_STREAMS_PER_CLIENT: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,5}$' })),
  // Live streams one network (an IPv4 /24, an IPv6 /64) may hold open at once in this process, all its addresses
  // together: many addresses of one network must not take the places the process keeps for everyone.
  FEED_STREAMS_PER_NETWORK: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,6}$' })),
  // Live streams this process holds open at once, whoever asks: the backstop behind the per-caller and per-network
  // caps. Its last tenth goes only to networks that hold no stream yet.
  FEED_STREAMS_MAX: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,6}$' })),
  // The SMTP server mail goes through, as a URL: smtp://user:pass@host:587 (STARTTLS when offered) or
  // smtps://…:465. Unset (the embedded default), nothing is sent: each message is an .eml file under DATA_DIR/mail/
  // and its subject and link are logged (docs/decisions/mail-outbox.md).
  SMTP_URL: Type.Optional(Type.String({ pattern: '^smtps?://' })),
  // The From of every mail: an address, or "Name <address>". Its domain should publish SPF/DKIM for the SMTP server.
  MAIL_FROM: Type.Optional(Type.String({ minLength: 3, maxLength: 300 })),
  // The single point of contact the DSA asks for (Art. 11, 12): shown on /terms for authorities and users.
  CONTACT_EMAIL: Type.Optional(Type.String({ minLength: 3, maxLength: 254 })),
  // The terms a decision on a report cites (DSA Art. 14, 17(3)(e)): the built-in /terms unless the operator publishes
  // their own, with the same clause anchors (#t1 … #t6). Linked from decisions and sent in the DSA export.
  TERMS_URL: Type.Optional(Type.String({ pattern: '^https?://', maxLength: 500 })),
  // A purging cache tier in front (Varnish with xkey; docs/cache.md): the base URLs of its nodes, comma separated.
  // Set, cacheable public answers carry their surrogate keys (`xkey`) and a `Surrogate-Control` lifetime, and one
  // instance at a time (whichever holds the purger's lease) purges each change's keys at every node. Unset, nothing
  // is purged and no answer names its keys: a cache that nobody purges must not be told to keep answers long.
  CACHE_PURGE_URLS: Type.Optional(Type.String({ pattern: '^https?://' })),
  // Milliseconds the purger's lease lasts unrenewed: a purger that dies is replaced this long after at most.
  CACHE_PURGE_LEASE_MS: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{2,6}$' })),
  LOG_LEVEL: Type.Optional(
    Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l))),
  ),
  // How log lines read: `text` (the default) is a sentence per line for a person at a terminal, with a request
  // logged only when it failed (4xx, 5xx; every one at LOG_LEVEL=debug); `json` is one JSON object per line with
  // every request, for a log collector (src/http/prose-log.ts).
  LOG_FORMAT: Type.Optional(Type.Union([Type.Literal('text'), Type.Literal('json')])),
  // The transparency log's Ed25519 signing key (base64 of a 32-byte seed, or PKCS#8 as PEM or base64 DER). Every
  // instance of one log needs the same key; unset, one is made at first start in DATA_DIR (log-signing-key.pem).
  LOG_SIGNING_KEY: Type.Optional(Type.String({ minLength: 1 })),
  // The Ed25519 key that signs verifiable credentials (docs/credentials.md), like LOG_SIGNING_KEY; published as the
  // did:web of SITE_URL at /.well-known/did.json. Unset, made at first use in DATA_DIR (credential-signing-key.pem).
  CREDENTIAL_SIGNING_KEY: Type.Optional(Type.String({ minLength: 1 })),
  // The log's origin (the first line of its checkpoints and the key's name): `<host>/log/v2` of SITE_URL by default.
  LOG_ORIGIN: Type.Optional(Type.String({ pattern: '^[^\\s+]+$' })),
  // Witnesses this log submits its checkpoints to (C2SP tlog-witness), comma-separated, each `name vkey url`: a name
  // for the policy, the witness's Ed25519 cosignature verifier key, and its submission prefix URL.
  LOG_WITNESSES: Type.Optional(Type.String({ minLength: 1 })),
  // How many of LOG_WITNESSES a reader must see cosign a checkpoint (the served tlog-policy's quorum): a number,
  // `any` (the default with witnesses), `all`, or `none` (the default without).
  LOG_WITNESS_QUORUM: Type.Optional(Type.String({ pattern: '^(none|any|all|[1-9][0-9]?)$' })),
  // Credence as a witness for other logs: their verifier keys (the key name is the log's origin), comma-separated.
  // Set, `serve` answers POST /witness/add-checkpoint.
  WITNESS_LOGS: Type.Optional(Type.String({ minLength: 1 })),
  // The witness's Ed25519 key (like LOG_SIGNING_KEY); unset, made at first use in DATA_DIR (witness-signing-key.pem).
  WITNESS_SIGNING_KEY: Type.Optional(Type.String({ minLength: 1 })),
  // The witness's name (its cosignatures' key name): `<host>/witness` of SITE_URL by default.
  WITNESS_NAME: Type.Optional(Type.String({ pattern: '^[^\\s+]+$' })),
  NODE_ENV: Type.Optional(Type.String()),
});
export type Env = Static<typeof EnvSchema>;

export interface Config {
  port: number;
  host: string;
  siteUrl: string;
  dataDir: string;
  /** ERASURE_LIST: the file of erasures to re-apply after a restore (null: none kept, as in most tests). */
  erasureList: string | null;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  requireHttps: boolean;
  trustProxy: boolean | number | string[];
  webhookAllowPrivate: boolean;
  rateLimitAllowlist: string[];
  apiAnonRateLimit: { capacity: number; rate: number };
  /** An account's bucket is this many times a key's (ACCOUNT_RATE_LIMIT_MULTIPLE). */
  accountRateLimitMultiple: number;
  apiKeysPerAccount: number;
  webhooksPerAccount: number;
  webhooksPerPublication: number;
  webhookHostDeliveriesPerMinute: number;
  publicationsOwnedPerAccount: number;
  requestsHeldPerAccount: number;
  requestTakeHours: number;
  /** CLAIMS_PENDING_PER_PERSON and CLAIMS_PER_PUBLICATION_PER_DAY. */
  claimLimits: { pendingPerPerson: number; perPublicationPerDay: number };
  /** OAUTH_ACCESS_TOKEN_TTL_SECONDS. */
  oauthAccessTokenTtlSeconds: number;
  /** OAUTH_ENABLED: the authorization server's routes are mounted only when true. */
  oauthEnabled: boolean;
  /** OAUTH_KEYS: unset, made at first start in DATA_DIR. */
  oauthKeys?: string | undefined;
  /** AUTHOR_LINKS_PENDING_PER_PUBLICATION and AUTHOR_LINKS_PENDING_PER_PERSON. */
  authorLinkLimits: { pendingPerPublication: number; pendingPerPerson: number };
  /** SMTP_URL: unset, mail is written to DATA_DIR/mail/ instead. */
  smtpUrl: string | undefined;
  mailFrom: string;
  contactEmail: string;
  termsUrl: string;
  logLevel: string;
  /** LOG_FORMAT: prose for people, or JSON lines for a collector. */
  logFormat: 'text' | 'json';
  logSigningKey: string | undefined;
  /** CREDENTIAL_SIGNING_KEY: unset, made at first use in DATA_DIR. */
  credentialSigningKey?: string | undefined;
  logOrigin: string | undefined;
  /** Witnesses the sequencer submits checkpoints to (LOG_WITNESSES). */
  logWitnesses: { name: string; vkey: string; url: string }[];
  /** none, any, all or a number (LOG_WITNESS_QUORUM). */
  logWitnessQuorum: string;
  /** Verifier keys of the logs this service witnesses (WITNESS_LOGS). */
  witnessLogs: string[];
  witnessSigningKey: string | undefined;
  witnessName: string | undefined;
  /**
   * scrypt cost of new password hashes, as log2 N. Not a setting: always 17 (N = 2^17, current guidance) from the
   * environment; only testConfig lowers it, because tests make hundreds of accounts (docs/decisions/password-hashing.md).
   */
  scryptLogN: number;
  metricsPort: number | undefined;
  metricsHost: string;
  metricsToken: string | undefined;
  /** 0 means one per core. */
  workers: number;
  shutdownTimeoutMs: number;
  recordCacheEntries: number;
  /** Live change-feed streams per caller (its address, and its account when signed in) and in all, in this process. */
  feedStreamsPerClient: number;
  /** …per network (IPv4 /24, IPv6 /64), all its addresses together. */
  feedStreamsPerNetwork: number;
  feedStreamsMax: number;
  /** The cache tier's nodes to purge (CACHE_PURGE_URLS); empty: no tier, no surrogate keys. */
  cachePurgeUrls: string[];
  cachePurgeLeaseMs: number;
}

export class ConfigError extends Error {}

const truthy = (v: string | undefined): boolean | undefined => (v === undefined ? undefined : v === 'true' || v === '1');

/** Parse the environment into a Config, or throw a ConfigError naming every bad variable. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const picked: Record<string, string> = {};
  for (const key of Object.keys(EnvSchema.properties)) {
    const value = env[key];
    if (value !== undefined && value !== '') picked[key] = value;
  }
  if (!Value.Check(EnvSchema, picked)) {
    const problems = [...Value.Errors(EnvSchema, picked)].map((e) => `${e.instancePath.slice(1) || 'env'}: ${e.message}`);
    throw new ConfigError(`invalid settings: ${problems.join('; ')}`);
  }
  const e = picked as Env;
  const port = e.PORT === undefined ? 8080 : Number(e.PORT);
  if (port < 1 || port > 65535) throw new ConfigError('invalid settings: PORT must be between 1 and 65535');
  if (e.LOG_SIGNING_KEY !== undefined) {
    try {
      parsePrivateKey(e.LOG_SIGNING_KEY);
    } catch (err) {
      throw new ConfigError(`invalid settings: LOG_SIGNING_KEY: ${(err as Error).message}`);
    }
  }
  if (e.CREDENTIAL_SIGNING_KEY !== undefined) {
    try {
      parsePrivateKey(e.CREDENTIAL_SIGNING_KEY);
    } catch (err) {
      throw new ConfigError(`invalid settings: CREDENTIAL_SIGNING_KEY: ${(err as Error).message}`);
    }
  }
  if (e.WITNESS_SIGNING_KEY !== undefined) {
    try {
      parsePrivateKey(e.WITNESS_SIGNING_KEY);
    } catch (err) {
      throw new ConfigError(`invalid settings: WITNESS_SIGNING_KEY: ${(err as Error).message}`);
    }
  }
  const logWitnesses = parseWitnessList(e.LOG_WITNESSES);
  const quorum = e.LOG_WITNESS_QUORUM ?? (logWitnesses.length > 0 ? 'any' : 'none');
  if (/^[0-9]+$/.test(quorum) && Number(quorum) > logWitnesses.length) {
    throw new ConfigError(`invalid settings: LOG_WITNESS_QUORUM: ${quorum} is more than the ${logWitnesses.length} LOG_WITNESSES`);
  }
  if (quorum !== 'none' && logWitnesses.length === 0) throw new ConfigError('invalid settings: LOG_WITNESS_QUORUM needs LOG_WITNESSES');
  const witnessLogs = splitList(e.WITNESS_LOGS).map((k) => {
    try {
      return parseVerifierKey(k) && k;
    } catch (err) {
      throw new ConfigError(`invalid settings: WITNESS_LOGS: ${(err as Error).message}: ${k}`);
    }
  });
  const [capacity, rate] = (e.API_ANON_RATE_LIMIT ?? '60/1').split('/').map(Number) as [number, number];
  return {
    port,
    host: e.HOST ?? '127.0.0.1',
    siteUrl: (e.SITE_URL ?? `http://localhost:${port}`).replace(/\/+$/, ''),
    oauthAccessTokenTtlSeconds: e.OAUTH_ACCESS_TOKEN_TTL_SECONDS === undefined ? 600 : Number(e.OAUTH_ACCESS_TOKEN_TTL_SECONDS),
    oauthEnabled: e.OAUTH_ENABLED === 'true',
    oauthKeys: e.OAUTH_KEYS,
    dataDir: e.DATA_DIR ?? './data',
    erasureList: e.ERASURE_LIST ?? `${(e.DATA_DIR ?? './data').replace(/\/+$/, '')}/erasures.jsonl`,
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    requireHttps: truthy(e.REQUIRE_HTTPS) ?? e.NODE_ENV === 'production',
    trustProxy: parseTrustProxy(e.TRUST_PROXY),
    webhookAllowPrivate: truthy(e.WEBHOOK_ALLOW_PRIVATE) ?? false,
    rateLimitAllowlist: splitList(e.RATE_LIMIT_ALLOWLIST),
    apiAnonRateLimit: { capacity, rate },
    accountRateLimitMultiple: e.ACCOUNT_RATE_LIMIT_MULTIPLE === undefined ? 2 : Number(e.ACCOUNT_RATE_LIMIT_MULTIPLE),
    apiKeysPerAccount: e.API_KEYS_PER_ACCOUNT === undefined ? 20 : Number(e.API_KEYS_PER_ACCOUNT),
    webhooksPerAccount: e.WEBHOOKS_PER_ACCOUNT === undefined ? 20 : Number(e.WEBHOOKS_PER_ACCOUNT),
    webhooksPerPublication: e.WEBHOOKS_PER_PUBLICATION === undefined ? 20 : Number(e.WEBHOOKS_PER_PUBLICATION),
    webhookHostDeliveriesPerMinute: e.WEBHOOK_HOST_DELIVERIES_PER_MINUTE === undefined ? 600 : Number(e.WEBHOOK_HOST_DELIVERIES_PER_MINUTE),
    publicationsOwnedPerAccount: e.PUBLICATIONS_OWNED_PER_ACCOUNT === undefined ? 5 : Number(e.PUBLICATIONS_OWNED_PER_ACCOUNT),
    requestsHeldPerAccount: e.REQUESTS_HELD_PER_ACCOUNT === undefined ? 3 : Number(e.REQUESTS_HELD_PER_ACCOUNT),
    requestTakeHours: e.REQUEST_TAKE_HOURS === undefined ? 72 : Number(e.REQUEST_TAKE_HOURS),
    claimLimits: {
      pendingPerPerson: e.CLAIMS_PENDING_PER_PERSON === undefined ? 20 : Number(e.CLAIMS_PENDING_PER_PERSON),
      perPublicationPerDay: e.CLAIMS_PER_PUBLICATION_PER_DAY === undefined ? 1_000 : Number(e.CLAIMS_PER_PUBLICATION_PER_DAY),
    },
    authorLinkLimits: {
      pendingPerPublication: e.AUTHOR_LINKS_PENDING_PER_PUBLICATION === undefined ? 50 : Number(e.AUTHOR_LINKS_PENDING_PER_PUBLICATION),
      pendingPerPerson: e.AUTHOR_LINKS_PENDING_PER_PERSON === undefined ? 3 : Number(e.AUTHOR_LINKS_PENDING_PER_PERSON),
    },
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM ?? `Credence <no-reply@${hostOf(e.SITE_URL ?? 'http://localhost')}>`,
    contactEmail: e.CONTACT_EMAIL ?? `contact@${hostOf(e.SITE_URL ?? 'http://localhost')}`,
    termsUrl: e.TERMS_URL ?? `${(e.SITE_URL ?? `http://localhost:${port}`).replace(/\/+$/, '')}/terms`,
    logLevel: e.LOG_LEVEL ?? 'info',
    logFormat: e.LOG_FORMAT ?? 'text',
    logSigningKey: e.LOG_SIGNING_KEY,
    credentialSigningKey: e.CREDENTIAL_SIGNING_KEY,
    logOrigin: e.LOG_ORIGIN,
    logWitnesses,
    logWitnessQuorum: quorum,
    witnessLogs,
    witnessSigningKey: e.WITNESS_SIGNING_KEY,
    witnessName: e.WITNESS_NAME,
    scryptLogN: 17,
    metricsPort: e.METRICS_PORT === undefined ? undefined : Number(e.METRICS_PORT),
    metricsHost: e.METRICS_HOST ?? '127.0.0.1',
    metricsToken: e.METRICS_TOKEN,
    workers: e.WORKERS === undefined ? 1 : e.WORKERS === 'auto' ? 0 : Number(e.WORKERS),
    shutdownTimeoutMs: (e.SHUTDOWN_TIMEOUT === undefined ? 25 : Number(e.SHUTDOWN_TIMEOUT)) * 1000,
    recordCacheEntries: e.RECORD_CACHE_ENTRIES === undefined ? 20_000 : Number(e.RECORD_CACHE_ENTRIES),
    feedStreamsPerClient: e.FEED_STREAMS_PER_CLIENT === undefined ? 10 : Number(e.FEED_STREAMS_PER_CLIENT),
    feedStreamsPerNetwork: e.FEED_STREAMS_PER_NETWORK === undefined ? 100 : Number(e.FEED_STREAMS_PER_NETWORK),
    feedStreamsMax: e.FEED_STREAMS_MAX === undefined ? 1000 : Number(e.FEED_STREAMS_MAX),
    cachePurgeUrls: splitList(e.CACHE_PURGE_URLS).map((u) => u.replace(/\/+$/, '')),
    cachePurgeLeaseMs: e.CACHE_PURGE_LEASE_MS === undefined ? 5000 : Number(e.CACHE_PURGE_LEASE_MS),
  };
}

function parseWitnessList(v: string | undefined): { name: string; vkey: string; url: string }[] {
  const out = splitList(v).map((item) => {
    const f = item.split(/\s+/);
    const bad = (why: string) => new ConfigError(`invalid settings: LOG_WITNESSES: ${why}: "${item}"`);
    if (f.length !== 3 || !/^[A-Za-z0-9._-]{1,64}$/.test(f[0]!) || f[0] === 'none') throw bad('each witness is `name vkey url` (a name of letters, digits, . _ -)');
    try {
      parseCosignerKey(f[1]!);
    } catch (err) {
      throw bad((err as Error).message);
    }
    if (!/^https?:\/\/\S+$/.test(f[2]!)) throw bad('the URL is http or https');
    return { name: f[0]!, vkey: f[1]!, url: f[2]!.replace(/\/+$/, '') };
  });
  if (new Set(out.map((w) => w.name)).size !== out.length) throw new ConfigError('invalid settings: LOG_WITNESSES: a name is listed twice');
  return out;
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname || 'localhost';
  } catch {
    return 'localhost';
  }
}

function splitList(v: string | undefined): string[] {
  return (v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function parseTrustProxy(v: string | undefined): boolean | number | string[] {
  if (v === undefined || v === 'false' || v === '0') return false;
  if (v === 'true') return true;
  if (/^[0-9]+$/.test(v)) return Number(v);
  return splitList(v);
}

/** A config for tests and tools: defaults, with overrides. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  // N = 2^12: a hash in a few milliseconds instead of ~150 ms. Tests and benchmarks only; loadConfig never does this.
  // Tests that read log lines parse them: JSON, unless a test asks for prose.
  return { ...loadConfig({}), requireHttps: false, logLevel: 'silent', logFormat: 'json', scryptLogN: 12, erasureList: null, ...overrides };
}
