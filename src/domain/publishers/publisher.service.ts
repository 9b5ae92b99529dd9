// Publications, their members and their domains (SPEC §1, §16).
import { isUniqueViolation } from '../../db/errors.js';
import { DomainError, conflict, forbidden, invalid, notFound } from '../errors.js';
import { findAccountByUsername } from '../accounts/account.store.js';
import { isoNow } from '../clock.js';
import { appendChange } from '../changes/change-log.js';
import type { Deps } from '../deps.js';
import { parseDomain } from '../pages/url-keys.js';
import { randomToken } from '../tokens.js';
import { TXT_PREFIX, WELL_KNOWN_PATH } from './domain-verifier.js';
import { listPublisherPages } from '../pages/page.store.js';
import * as store from './publisher.store.js';

export async function createPublisher(deps: Deps, accountId: number, input: { name: string; slug: string }) {
  const now = isoNow(deps.clock);
  const slug = input.slug.toLowerCase();
  try {
    return await deps.db.transaction().execute(async (trx) => {
      const id = await store.insertPublisher(trx, { slug, name: input.name.trim(), created_at: now });
      await store.upsertMember(trx, { publisher_id: id, account_id: accountId, role: 'owner', created_at: now });
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

export async function addMember(
  deps: Deps,
  accountId: number,
  slug: string,
  input: { username: string; role: 'owner' | 'editor' },
) {
  const { publisher } = await requireMember(deps, accountId, slug, 'owner');
  const member = await findAccountByUsername(deps.db, input.username.toLowerCase());
  if (!member) throw invalid('username', `no account is called ${input.username}`);
  const existing = await store.findMembership(deps.db, publisher.id, member.id);
  const now = isoNow(deps.clock);
  await store.upsertMember(deps.db, { publisher_id: publisher.id, account_id: member.id, role: input.role, created_at: now });
  return { created: !existing, member: { username: member.username, name: member.name, role: input.role } };
}

export async function listMembers(deps: Deps, accountId: number, slug: string) {
  const { publisher } = await requireMember(deps, accountId, slug);
  return store.listMembers(deps.db, publisher.id);
}

export function verificationInstructions(domain: string, token: string) {
  return {
    dns: { type: 'TXT', name: domain, value: `${TXT_PREFIX}${token}` },
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
    await store.insertDomain(deps.db, { publisher_id: publisher.id, domain, token: randomToken(16), created_at: isoNow(deps.clock) });
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
