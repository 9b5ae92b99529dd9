// Writing mail: every message is a row of the outbox, written in the transaction of the change that causes it
// (jobs/mail.ts sends it later, so a crash or an SMTP outage loses nothing). Single-use links are made here too.
import { randomBytes, randomUUID } from 'node:crypto';
import type { Deps, Db } from '../deps.js';
import { notFound } from '../errors.js';
import { recordMailMentions } from '../privacy/mentions.store.js';
import { sha256 } from '../tokens.js';
import { isNoticeKind, JOIN_WINDOW_MS, UNSUBSCRIBE_HOURS, type MailKind, NOTICE_KINDS, type NoticeKind } from './mail.kinds.js';
import type { Fact } from './mail.messages.js';
import * as store from './mail.store.js';

export interface MailRequest {
  accountId: number;
  kind: MailKind;
  fact: Fact;
  /** Notices about the same thing (a page, a request, a key) share a thread, and a waiting one takes the next. */
  thread?: string;
  /** Another address than the account's (an address change's new one); account mail only. */
  to?: string;
}

/** A link to hand out once; its hash is what the database keeps. */
export function newLinkToken(): string {
  return randomBytes(24).toString('base64url');
}

export async function issueToken(
  trx: Db,
  deps: Pick<Deps, 'clock'>,
  accountId: number,
  purpose: 'confirm' | 'reset' | 'unsubscribe' | 'appeal',
  hours: number,
  email: string | null = null,
): Promise<string> {
  const token = newLinkToken();
  const now = deps.clock.now();
  await store.insertToken(trx, {
    account_id: accountId,
    purpose,
    token_hash: sha256(token),
    email,
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + hours * 3_600_000).toISOString(),
  });
  return token;
}

const messageIdOf = (siteUrl: string) => `<${randomUUID()}@${new URL(siteUrl).hostname || 'credence.invalid'}>`;

/**
 * Put a message in the outbox, inside the caller's transaction. Account mail always goes. A notice goes only to a
 * confirmed address whose owner has not turned its kind off; one waiting in the same thread takes it instead
 * (joined: one mail about the same thing within JOIN_WINDOW_MS). Returns whether anything was queued.
 */
export async function enqueueMail(trx: Db, deps: Pick<Deps, 'clock' | 'config' | 'dialect'>, request: MailRequest): Promise<boolean> {
  return enqueueJoined(trx, deps, request, [request.fact]);
}

/**
 * Several messages at once (a batch of decisions or namings): those to one account in one thread are joined before
 * they are written, one read and one write for the lot instead of one each. Joining them one at a time rewrote the
 * growing list of facts for every item: 500 decisions on one person's work took 0.4 s in mail alone.
 */
export async function enqueueMails(trx: Db, deps: Pick<Deps, 'clock' | 'config' | 'dialect'>, requests: MailRequest[]): Promise<void> {
  const groups = new Map<string, { request: MailRequest; facts: Fact[] }>();
  for (const r of requests) {
    const key = JSON.stringify([r.accountId, r.kind, r.thread ?? null, r.to ?? null]);
    const group = groups.get(key);
    if (group) group.facts.push(r.fact);
    else groups.set(key, { request: r, facts: [r.fact] });
  }
  for (const { request, facts } of groups.values()) await enqueueJoined(trx, deps, request, facts);
}

async function enqueueJoined(trx: Db, deps: Pick<Deps, 'clock' | 'config' | 'dialect'>, m: MailRequest, facts: Fact[]): Promise<boolean> {
  const account = await trx.selectFrom('accounts').select(['email', 'locale', 'email_confirmed_at']).where('id', '=', m.accountId).executeTakeFirst();
  if (!account) return false;
  const now = deps.clock.now();
  const nowIso = now.toISOString();
  let nextAttempt = nowIso;
  let thread: string | null = null;
  if (isNoticeKind(m.kind)) {
    if (!account.email_confirmed_at) return false;
    if ((await store.offKinds(trx, m.accountId)).includes(m.kind)) return false;
    thread = `${m.kind}:${m.thread ?? 'all'}`;
    const waiting = await store.joinableNotice(trx, deps.dialect, m.accountId, thread, nowIso);
    if (waiting) {
      const joined = JSON.parse(waiting.facts) as Fact[];
      if (await store.appendFacts(trx, waiting.id, [...joined, ...facts])) {
        await recordMailMentions(trx, waiting.id, facts);
        return true;
      }
    }
    nextAttempt = new Date(now.getTime() + JOIN_WINDOW_MS).toISOString();
    // The one-click unsubscribe of this kind (RFC 8058): good for a year, any number of times, without signing in.
    const unsubscribe = await issueToken(trx, deps, m.accountId, 'unsubscribe', UNSUBSCRIBE_HOURS, m.kind);
    facts = [{ ...facts[0]!, unsubscribe }, ...facts.slice(1)];
  }
  const id = await store.insertOutbox(trx, {
    account_id: m.accountId,
    kind: m.kind,
    to_address: m.to ?? account.email,
    locale: account.locale,
    thread,
    facts,
    message_id: messageIdOf(deps.config.siteUrl),
    next_attempt_at: nextAttempt,
    created_at: nowIso,
  });
  await recordMailMentions(trx, id, facts);
  return true;
}

/** The same notice to every owner of a publication (a request taken, a webhook disabled). */
export async function noticeToOwners(trx: Db, deps: Pick<Deps, 'clock' | 'config' | 'dialect'>, publisherId: number, m: Omit<MailRequest, 'accountId'>): Promise<void> {
  const owners = await trx.selectFrom('publisher_members').select('account_id').where('publisher_id', '=', publisherId).where('role', '=', 'owner').execute();
  for (const o of owners) await enqueueMail(trx, deps, { ...m, accountId: o.account_id });
}

// Turning notice kinds off and on.

export interface NoticeSetting {
  kind: NoticeKind;
  enabled: boolean;
}

export async function noticeSettings(deps: Deps, accountId: number): Promise<NoticeSetting[]> {
  const off = new Set(await store.offKinds(deps.db, accountId));
  return NOTICE_KINDS.map((kind) => ({ kind, enabled: !off.has(kind) }));
}

/**
 * The one-click unsubscribe (RFC 8058): the link's token names an account and one kind; that kind is turned off and
 * nothing else changes. Works without signing in, any number of times; an unknown token is a 404.
 */
export async function unsubscribe(deps: Deps, token: string): Promise<{ kind: NoticeKind }> {
  const now = deps.clock.now().toISOString();
  const link = await store.liveToken(deps.db, 'unsubscribe', sha256(token), now);
  if (!link || !link.email || !isNoticeKind(link.email)) throw notFound('Unsubscribe link');
  await store.setKind(deps.db, link.account_id, link.email, false, now);
  return { kind: link.email };
}

/** What an unsubscribe link would turn off, for the page that asks before doing it (null: no such link). */
export async function unsubscribeTarget(deps: Deps, token: string): Promise<{ kind: NoticeKind } | null> {
  const link = await store.liveToken(deps.db, 'unsubscribe', sha256(token), deps.clock.now().toISOString());
  return link?.email && isNoticeKind(link.email) ? { kind: link.email } : null;
}

export async function setNoticeSettings(deps: Deps, accountId: number, changes: Partial<Record<NoticeKind, boolean>>): Promise<NoticeSetting[]> {
  const now = deps.clock.now().toISOString();
  await deps.db.transaction().execute(async (trx) => {
    for (const kind of NOTICE_KINDS) {
      const enabled = changes[kind];
      if (enabled !== undefined) await store.setKind(trx, accountId, kind, enabled, now);
    }
  });
  return noticeSettings(deps, accountId);
}
