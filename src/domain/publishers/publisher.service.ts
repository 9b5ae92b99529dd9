// Publications, their members and their domains (SPEC §1, §16).
import { enqueueMail, noticeToOwners } from '../mail/mail.service.js';
import { isUniqueViolation } from '../../db/errors.js';
import { DomainError, conflict, forbidden, invalid, invalidUrl, notFound } from '../errors.js';
import { findAccountByUsername, lockAccount } from '../accounts/account.store.js';
import { isoNow } from '../clock.js';
import { appendChange } from '../changes/change-log.js';
import type { Deps } from '../deps.js';
import { parseDomain, parsePageUrl, registrableDomain } from '../pages/url-keys.js';
import { randomToken } from '../tokens.js';
import { TXT_PREFIX, WELL_KNOWN_PATH } from './domain-verifier.js';
import { listPublisherPages, listPublisherPagesBefore } from '../pages/page.store.js';
import { decodeCursor, pageOf } from '../cursor.js';
import { deletePreference, preferencesOf } from '../consent/consent.store.js';
import * as store from './publisher.store.js';
import { holdsHost, notHeld } from './holding.js';
import { cancelStrandedRequests } from '../requests/stranded.js';

/**
 * 409 naming the limit when the account already owns PUBLICATIONS_OWNED_PER_ACCOUNT publications: counted under the
 * account's lock, inside the transaction that would make it an owner, so two at once cannot pass it.
 */
async function assertMayOwnAnother(trx: Trx, deps: Deps, accountId: number, who: 'you' | string): Promise<void> {
  await lockAccount(trx, deps.dialect, accountId);
  const cap = deps.config.publicationsOwnedPerAccount;
  if ((await store.countOwned(trx, accountId)) < cap) return;
  throw new DomainError(
    'conflict',
    who === 'you' ? `You own ${cap} publications, the most an account may; hand one over first` : `${who} owns ${cap} publications, the most an account may`,
    [{ field: 'limit', message: `at most ${cap} publications owned by one account (PUBLICATIONS_OWNED_PER_ACCOUNT)` }],
  );
}

export async function createPublisher(deps: Deps, accountId: number, input: { name: string; slug: string }) {
  const now = isoNow(deps.clock);
  const slug = input.slug.toLowerCase();
  try {
    return await deps.db.transaction().execute(async (trx) => {
      await assertMayOwnAnother(trx, deps, accountId, 'you');
      const id = await store.insertPublisher(trx, { slug, name: input.name.trim(), created_at: now });
      await store.saveMember(trx, { publisher_id: id, account_id: accountId, role: 'owner', created_at: now }, 'set-role');
      await appendChange(trx, { kind: 'publisher.created', ids: { publisherId: id }, data: { publisher: { slug, name: input.name.trim() } }, now });
      return { id, slug, name: input.name.trim(), role: 'owner' as const, created_at: now };
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw conflict(`The slug ${slug} is taken`);
    throw err;
  }
}

/** The publisher, if the account is a member; 404 for strangers (their membership is nobody's business). */
export async function requireMember(deps: Deps, accountId: number, slug: string, role?: 'owner') {
  const publisher = await store.findPublisherBySlug(deps.db, slug.toLowerCase());
  if (!publisher) throw notFound('Publisher');
  const membership = await store.findMembership(deps.db, publisher.id, accountId);
  if (!membership) throw notFound('Publisher');
  if (role && membership.role !== role) throw forbidden('Only an owner of the publication can do this');
  return { publisher, role: membership.role };
}

type Trx = Deps['db'];

/**
 * Run `change` as one transaction holding the publication's write lock (store.lockPublisher), after checking again,
 * under the lock, that the caller is still a member (an owner when `role` says so): a change of membership never
 * acts on what another one has just undone. 404 for strangers, as requireMember.
 */
async function underLock<T>(
  deps: Deps,
  accountId: number,
  slug: string,
  role: 'owner' | undefined,
  change: (trx: Trx, publisher: { id: number; slug: string; name: string }, callerRole: string) => Promise<T>,
): Promise<T> {
  const publisher = await store.findPublisherBySlug(deps.db, slug.toLowerCase());
  if (!publisher) throw notFound('Publisher');
  return deps.db.transaction().execute(async (trx) => {
    await store.lockPublisher(trx, deps.dialect, publisher.id);
    const membership = await store.findMembership(trx, publisher.id, accountId);
    if (!membership) throw notFound('Publisher');
    if (role && membership.role !== role) throw forbidden('Only an owner of the publication can do this');
    return change(trx, publisher, membership.role);
  });
}

/** 409 when `leaving` is the publication's only owner: a publication always keeps one. Read under the lock. */
async function keepAnOwner(trx: Trx, publisherId: number, leaving: number): Promise<number[]> {
  const owners = await store.listOwnerIds(trx, publisherId);
  if (owners.every((id) => id === leaving)) {
    throw conflict('A publication always keeps an owner: make another member owner first (or transfer ownership)');
  }
  return owners;
}

/**
 * Add someone (owners only), with their consent: a person not yet a member gets an invitation they accept
 * or decline; until then nothing changes for them (their keys stay contributor keys). For a member already there,
 * this changes their role, and the last owner cannot be demoted.
 */
export async function addMember(
  deps: Deps,
  accountId: number,
  slug: string,
  input: { username: string; role: 'owner' | 'editor' },
) {
  const member = await findAccountByUsername(deps.db, input.username.toLowerCase());
  return underLock(deps, accountId, slug, 'owner', async (trx, publisher) => {
    // An unconfirmed account cannot be named: answered as though there were none, as its profile is.
    if (!member || !member.email_confirmed_at) throw invalid('username', `no account is called ${input.username}`);
    const now = isoNow(deps.clock);
    const view = { username: member.username, name: member.name, role: input.role };
    const existing = await store.findMembership(trx, publisher.id, member.id);
    if (existing) {
      if (existing.role === 'owner' && input.role !== 'owner') {
        await keepAnOwner(trx, publisher.id, member.id);
        await store.withdrawInvitationsBy(trx, publisher.id, member.id);
      }
      if (existing.role !== 'owner' && input.role === 'owner') await assertMayOwnAnother(trx, deps, member.id, member.username);
      await store.saveMember(trx, { publisher_id: publisher.id, account_id: member.id, role: input.role, created_at: now }, 'set-role');
      return { status: 'member' as const, member: view };
    }
    await store.upsertInvitation(trx, { publisher_id: publisher.id, account_id: member.id, role: input.role, invited_by: accountId, created_at: now });
    const inviter = await trx.selectFrom('accounts').select('username').where('id', '=', accountId).executeTakeFirst();
    await enqueueMail(trx, deps, {
      accountId: member.id,
      kind: 'member_invitation',
      thread: `publisher:${publisher.id}`,
      fact: { inviter: inviter?.username ?? '', publisher: publisher.name, role: input.role, link: `${deps.config.siteUrl}/me` },
    });
    return { status: 'invited' as const, member: view };
  });
}

/**
 * Remove a member: owners remove anyone, a member may remove themselves (leave); the last owner cannot. Their
 * publisher keys for this publication are revoked and their webhooks of it pass to the owner who acts (or, when a
 * member leaves, to an owner), so the publication's integrations keep running and the person loses every way in.
 */
export async function removeMember(deps: Deps, accountId: number, slug: string, username: string) {
  const member = await findAccountByUsername(deps.db, username.toLowerCase());
  return underLock(deps, accountId, slug, undefined, async (trx, publisher, role) => {
    const membership = member ? await store.findMembership(trx, publisher.id, member.id) : undefined;
    if (!member || !membership) throw notFound('Member');
    if (member.id !== accountId && role !== 'owner') throw forbidden('Only an owner of the publication can do this');
    const owners = membership.role === 'owner' ? await keepAnOwner(trx, publisher.id, member.id) : await store.listOwnerIds(trx, publisher.id);
    const heir = member.id === accountId ? owners.find((id) => id !== member.id)! : accountId;
    const now = isoNow(deps.clock);
    await store.deleteMember(trx, publisher.id, member.id);
    await store.withdrawInvitationsBy(trx, publisher.id, member.id);
    await store.revokePublisherKeysOf(trx, publisher.id, member.id, now);
    await store.handOverWebhooks(trx, publisher.id, member.id, heir, now);
    // A standing permission was given as a member: it ends with the membership, and re-joining asks anew. A refusal
    // is the person's answer to the publication whatever their role, so it stays.
    if ((await preferencesOf(trx, publisher.id, [member.id])).get(member.id) === 'permit') await deletePreference(trx, member.id, publisher.id);
    return { username: member.username };
  });
}

/** Make another member the owner; the caller (an owner) stays, as an editor. */
export async function transferOwnership(deps: Deps, accountId: number, slug: string, username: string) {
  const member = await findAccountByUsername(deps.db, username.toLowerCase());
  return underLock(deps, accountId, slug, 'owner', async (trx, publisher) => {
    const membership = member ? await store.findMembership(trx, publisher.id, member.id) : undefined;
    if (!member || !membership) throw invalid('username', `${username} is not a member of this publication; invite them first`);
    if (member.id === accountId) throw invalid('username', 'is you: name another member');
    if (membership.role !== 'owner') await assertMayOwnAnother(trx, deps, member.id, member.username);
    const now = isoNow(deps.clock);
    await store.saveMember(trx, { publisher_id: publisher.id, account_id: member.id, role: 'owner', created_at: now }, 'set-role');
    await store.saveMember(trx, { publisher_id: publisher.id, account_id: accountId, role: 'editor', created_at: now }, 'set-role');
    await store.withdrawInvitationsBy(trx, publisher.id, accountId);
    return store.listMembers(trx, publisher.id);
  });
}

export async function listInvitations(deps: Deps, accountId: number, slug: string) {
  const { publisher } = await requireMember(deps, accountId, slug);
  return store.listInvitationsOfPublisher(deps.db, publisher.id);
}

export async function cancelInvitation(deps: Deps, accountId: number, slug: string, username: string) {
  const member = await findAccountByUsername(deps.db, username.toLowerCase());
  await underLock(deps, accountId, slug, 'owner', async (trx, publisher) => {
    if (!member || !(await store.deleteInvitation(trx, publisher.id, member.id))) throw notFound('Invitation');
  });
}

/** The invitations waiting for this account's answer. */
export const myInvitations = (deps: Deps, accountId: number) => store.listInvitationsOfAccount(deps.db, accountId);

/**
 * Accept: the account becomes a member with the role it was offered. Under the publication's lock, and only if the
 * invitation is still there (not withdrawn or answered in the meantime) and its inviter is still an owner: an
 * invitation is worth no more than its inviter's standing now (One made by an owner since removed must
 * not let its invitee in, let alone as an owner). One that lost its inviter is withdrawn here and answered 404, as
 * a withdrawn one is. A member already there keeps their role.
 */
export async function acceptInvitation(deps: Deps, accountId: number, id: number) {
  const inv = await store.findInvitation(deps.db, accountId, id);
  if (!inv) throw notFound('Invitation');
  const now = isoNow(deps.clock);
  const joined = await deps.db.transaction().execute(async (trx) => {
    await store.lockPublisher(trx, deps.dialect, inv.publisher_id);
    const current = await store.findInvitationRow(trx, accountId, id);
    if (!current) throw notFound('Invitation');
    await store.deleteInvitationById(trx, accountId, id);
    const inviter = await store.findMembership(trx, current.publisher_id, current.invited_by);
    if (inviter?.role !== 'owner') return false;
    const already = await store.findMembership(trx, current.publisher_id, accountId);
    if (current.role === 'owner' && !already) await assertMayOwnAnother(trx, deps, accountId, 'you');
    await store.saveMember(trx, { publisher_id: current.publisher_id, account_id: accountId, role: current.role, created_at: now }, 'keep');
    return current.role;
  });
  if (!joined) throw notFound('Invitation');
  return { slug: inv.slug, name: inv.name, role: joined };
}

export async function declineInvitation(deps: Deps, accountId: number, id: number) {
  if (!(await store.deleteInvitationById(deps.db, accountId, id))) throw notFound('Invitation');
}

export async function listMembers(deps: Deps, accountId: number, slug: string) {
  const { publisher } = await requireMember(deps, accountId, slug);
  return store.listMembers(deps.db, publisher.id);
}

export function verificationInstructions(domain: string, token: string) {
  return {
    dns: { type: 'TXT' as const, name: domain, value: `${TXT_PREFIX}${token}` },
    file: { url: `https://${domain}${WELL_KNOWN_PATH}`, content: token },
  };
}

export async function claimDomain(deps: Deps, accountId: number, slug: string, rawDomain: string) {
  const { publisher } = await requireMember(deps, accountId, slug);
  const domain = parseDomain(rawDomain);
  if (!domain) throw invalid('domain', 'must be a public DNS name such as example.com');
  const existing = await store.findDomain(deps.db, publisher.id, domain);
  if (existing) return { created: false, domain: existing };
  try {
    await store.insertDomain(deps.db, {
      publisher_id: publisher.id,
      domain,
      registrable_domain: registrableDomain(domain),
      token: randomToken(16),
      created_at: isoNow(deps.clock),
    });
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
  }
  const row = await store.findDomain(deps.db, publisher.id, domain);
  if (!row) throw new Error('domain claim vanished');
  return { created: true, domain: row };
}

export async function listDomains(deps: Deps, accountId: number, slug: string) {
  const { publisher } = await requireMember(deps, accountId, slug);
  return store.listDomains(deps.db, publisher.id);
}

/** Check the DNS record and the well-known file for real; verified, or 400 saying what was found. */
export async function verifyDomain(deps: Deps, accountId: number, slug: string, rawDomain: string) {
  const { publisher } = await requireMember(deps, accountId, slug);
  const domain = parseDomain(rawDomain);
  const row = domain ? await store.findDomain(deps.db, publisher.id, domain) : undefined;
  if (!domain || !row) throw notFound('Domain claim');
  if (row.status === 'verified') return row;

  const expected = `${TXT_PREFIX}${row.token}`;
  const txt = await deps.verifier.resolveTxt(domain);
  let method: 'dns' | 'file' | null = txt.some((v) => v.trim() === expected) ? 'dns' : null;
  let fileFinding = 'not checked';
  if (!method) {
    const file = await deps.verifier.fetchWellKnown(domain);
    const body = file.body.trim();
    if (file.status === 200 && (body === row.token || body === expected)) method = 'file';
    else if (file.error) fileFinding = file.error;
    else if (file.status !== 200) fileFinding = `answered HTTP ${file.status}`;
    else fileFinding = 'answered 200 but did not hold the token';
  }
  if (!method) {
    const found = txt.filter((v) => v.startsWith(TXT_PREFIX));
    const dnsFinding =
      txt.length === 0
        ? 'no TXT records'
        : found.length > 0
          ? `TXT ${found.map((v) => JSON.stringify(v)).join(', ')}, which does not match`
          : `${txt.length} TXT record(s), none starting with ${TXT_PREFIX}`;
    throw new DomainError('invalid_request',
      `${domain} is not verified yet. DNS: ${dnsFinding}. File ${WELL_KNOWN_PATH}: ${fileFinding}.`,
      [
        { field: 'dns', message: dnsFinding },
        { field: 'file', message: fileFinding },
      ],
    );
  }
  await markVerified(deps, publisher.id, domain, method);
  await deps.changes.committed();
  return (await store.findDomain(deps.db, publisher.id, domain))!;
}

/** Operators (CLI): verify without a check, claiming the domain first if needed. */
export async function verifyDomainByOperator(deps: Deps, slug: string, rawDomain: string) {
  const publisher = await store.findPublisherBySlug(deps.db, slug.toLowerCase());
  if (!publisher) throw notFound(`Publisher ${slug}`);
  const domain = parseDomain(rawDomain);
  if (!domain) throw invalid('domain', 'must be a public DNS name such as example.com');
  if (!(await store.findDomain(deps.db, publisher.id, domain))) {
    await store.insertDomain(deps.db, { publisher_id: publisher.id, domain, registrable_domain: registrableDomain(domain), token: randomToken(16), created_at: isoNow(deps.clock) });
  }
  await markVerified(deps, publisher.id, domain, 'operator');
  await deps.changes.committed();
  return (await store.findDomain(deps.db, publisher.id, domain))!;
}

/** Verify in one transaction with its change-log entry: `domain.moved` when another publisher held it. */
async function markVerified(deps: Deps, publisherId: number, domain: string, by: 'dns' | 'file' | 'operator') {
  const now = isoNow(deps.clock);
  await deps.db.transaction().execute(async (trx) => {
    const before = await store.findDomain(trx, publisherId, domain);
    const displaced = await store.markDomainVerified(trx, publisherId, domain, by, now);
    if (before?.status === 'verified' && displaced.length === 0) return;
    const publisher = await store.findPublicPublisher(trx, publisherId);
    const previous = displaced[0] === undefined ? undefined : await store.findPublicPublisher(trx, displaced[0]);
    await appendChange(trx, { kind: previous ? 'domain.moved' : 'domain.verified', ids: { publisherId }, data: { domain, publisher, previous_publisher: previous }, now });
    // The old holder's requests there could no longer be decided by anyone: the move cancels them (domain-verification.md).
    // Its owners hear of it: whoever proved control may not be whom they expect.
    for (const id of displaced) {
      const old = await store.findPublicPublisher(trx, id);
      const cancelled = await cancelStrandedRequests(trx, deps, { publisherId: id, publisherName: old.name, domain, holder: publisher.name }, now);
      await noticeToOwners(trx, deps, id, {
        kind: 'domain_moved',
        thread: `publisher:${id}`,
        fact: { publisher: old.name, domain, holder: publisher.name, cancelled, link: `${deps.config.siteUrl}/dashboard/${old.slug}/domains` },
      });
    }
  });
}

export async function listPublishers(deps: Deps, page: number, perPage: number) {
  const [total, rows] = await Promise.all([
    store.countPublishers(deps.db),
    store.listPublishers(deps.db, perPage, (page - 1) * perPage),
  ]);
  const ids = rows.map((r) => r.id);
  const [domains, pageCounts] = await Promise.all([store.verifiedDomainsOf(deps.db, ids), store.countPagesByPublisher(deps.db, ids)]);
  return {
    total,
    items: rows.map((p) => ({ publisher: p, domains: domains.get(p.id) ?? [], pages: pageCounts.get(p.id) ?? 0 })),
  };
}

/** Publications by slug or name, with their verified domains and page counts (the site search). */
export async function searchPublishers(deps: Deps, q: string, limit: number) {
  const rows = await store.searchPublishers(deps.db, q.trim(), limit);
  const ids = rows.map((r) => r.id);
  const [domains, pageCounts] = await Promise.all([store.verifiedDomainsOf(deps.db, ids), store.countPagesByPublisher(deps.db, ids)]);
  return rows.map((p) => ({ publisher: p, domains: domains.get(p.id) ?? [], pages: pageCounts.get(p.id) ?? 0 }));
}

export async function getPublisher(deps: Deps, slug: string) {
  const publisher = await store.findPublisherBySlug(deps.db, slug.toLowerCase());
  if (!publisher) throw notFound('Publisher');
  const [domains, pageCounts, contributors, recentPages] = await Promise.all([
    store.verifiedDomainsOf(deps.db, [publisher.id]),
    store.countPagesByPublisher(deps.db, [publisher.id]),
    store.listPublisherContributors(deps.db, publisher.id, 50),
    listPublisherPages(deps.db, publisher.id, 20, 0),
  ]);
  return { publisher, domains: domains.get(publisher.id) ?? [], pages: pageCounts.get(publisher.id) ?? 0, contributors, recentPages };
}

/** A publication's pages on record, newest first, a page at a time after a cursor. */
export async function publisherPages(deps: Deps, slug: string, after: string | undefined, limit: number) {
  const publisher = await store.findPublisherBySlug(deps.db, slug.toLowerCase());
  if (!publisher) throw notFound('Publisher');
  const before = after === undefined ? null : decodeCursor(after, (v) => (Number.isSafeInteger(v.id) ? (v.id as number) : null));
  const rows = await listPublisherPagesBefore(deps.db, publisher.id, before, limit + 1);
  return pageOf(rows, limit, (last) => ({ id: last.id }));
}

/** The people with accepted work on a publication's pages, most contributions first, a page at a time after a cursor. */
export async function publisherContributors(deps: Deps, slug: string, after: string | undefined, limit: number) {
  const publisher = await store.findPublisherBySlug(deps.db, slug.toLowerCase());
  if (!publisher) throw notFound('Publisher');
  const from =
    after === undefined
      ? null
      : decodeCursor(after, (v) => (Number.isSafeInteger(v.n) && typeof v.u === 'string' ? { contributions: v.n as number, username: v.u } : null));
  const rows = await store.listPublisherContributors(deps.db, publisher.id, limit + 1, from);
  return pageOf(rows, limit, (last) => ({ n: Number(last.contributions), u: last.username }));
}

/**
 * The publication of the caller's that verified a page's domain: how a person in several publications acts on a page
 * without naming one (`POST /v1/requests`). A verified domain belongs to one publication (verifying it
 * displaces any other), so the answer is unique. A page on none of the caller's verified domains is 403
 * `page_not_verified`, as it is for a key.
 */
export async function memberPublisherForPage(deps: Deps, accountId: number, rawUrl: string): Promise<number> {
  const url = parsePageUrl(rawUrl);
  if (!url) throw invalidUrl();
  const memberships = await store.listMemberships(deps.db, accountId);
  if (memberships.length === 0) throw forbidden('This account is not a member of any publication');
  const domains = await store.verifiedDomainsOf(deps.db, memberships.map((m) => m.id));
  const found = memberships.find((m) => holdsHost(domains.get(m.id) ?? [], url.host));
  if (!found) throw notHeld(url.host);
  return found.id;
}
