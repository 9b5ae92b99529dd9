// A credential presents an accepted contribution, signed; the record stays the source of truth (STYLE, new rooms).
// Issuing keeps a row per contribution and choice of holder identifier, with its status index; presenting it again
// gives the same credential. The status lists are computed from the record when served and cached under the
// `credentials` tag, which every entry that can change a status touches (changes/follower.ts): a withdrawal, an
// erasure, a page's notice, a moderation decision. So a bit follows the record within the follower's second.
import { createHash, randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import * as vc from '@digitalbazaar/vc';
import { DataIntegrityProof } from '@digitalbazaar/data-integrity';
import { cryptosuite } from '@digitalbazaar/eddsa-rdfc-2022-cryptosuite';
import { SignJWT, importJWK } from 'jose';
import type { Deps } from '../deps.js';
import { isoNow } from '../clock.js';
import { invalid, notFound } from '../errors.js';
import { findContributionOf } from '../consent/consent.store.js';
import { proofBundle } from '../transparency/witnesses.js';
import { standingOf } from '../pages/notices.js';
import { tag } from '../pages/cache-tags.js';
import { documentLoader, OB_V3_CONTEXT, VC_V2_CONTEXT } from './contexts.js';
import { issuerOf } from './issuer.js';

/** Bits per status list: 2^17, the Bitstring Status List's minimum for group privacy (16 KB before compression). */
export const STATUS_LIST_LENGTH = 131_072;
export const STATUS_PURPOSES = ['revocation', 'suspension'] as const;
export type StatusPurpose = (typeof STATUS_PURPOSES)[number];
export const HOLDER_KINDS = ['profile', 'email_hash'] as const;
export type HolderKind = (typeof HOLDER_KINDS)[number];

/** A page whose standing is one of these suspends its credentials; a reinstatement lifts it. */
const SUSPENDING = new Set(['retracted', 'withdrawn', 'removed']);

const ROLE_WORDS: Record<string, string> = {
  author: 'Author',
  review: 'Review',
  fact_check: 'Fact check',
  edit: 'Edit',
  correction: 'Correction',
  source: 'Source',
};

export const statusListUrl = (siteUrl: string, purpose: StatusPurpose, list: number) => `${siteUrl}/v1/credentials/status/${purpose}/${list}`;

const seconds = (iso: string) => iso.replace(/\.\d+Z$/, 'Z');

/** A UUID made from the credential's row (RFC 9562 version 8): the same credential keeps its id when presented again. */
function credentialUrn(siteUrl: string, id: number): string {
  const h = createHash('sha256').update(`${siteUrl}\0credential\0${id}`).digest('hex');
  return `urn:uuid:${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export type CredentialFormat = 'ldp' | 'jwt';

/** The credential of the caller's contribution `id`: a signed OpenBadgeCredential (Data Integrity), or a VC-JWT. */
export async function credentialOf(deps: Deps, accountId: number, id: number, holder: HolderKind, format: CredentialFormat): Promise<object | string> {
  const c = await findContributionOf(deps.db, accountId, id);
  if (!c) throw notFound('Contribution');
  const account = await deps.db.selectFrom('accounts').select(['username', 'email']).where('id', '=', accountId).executeTakeFirstOrThrow();
  const row = await issuedRow(deps, accountId, id, holder);
  const site = deps.config.siteUrl;
  const issuer = await issuerOf(deps.config);
  const role = ROLE_WORDS[c.role] ?? c.role;
  const status = STATUS_PURPOSES.map((purpose) => {
    const list = statusListUrl(site, purpose, Math.floor(row.status_index / STATUS_LIST_LENGTH));
    const bit = row.status_index % STATUS_LIST_LENGTH;
    return { id: `${list}#${bit}`, type: 'BitstringStatusListEntry', statusPurpose: purpose, statusListIndex: String(bit), statusListCredential: list };
  });
  const subject: Record<string, unknown> = { type: ['AchievementSubject'] };
  if (holder === 'profile') subject.id = `${site}/contributors/${encodeURIComponent(account.username)}`;
  else {
    // Open Badges' IdentityObject: the address itself never leaves; whoever knows it and the salt can match it.
    const hash = createHash('sha256').update(account.email.toLowerCase() + row.salt!).digest('hex');
    subject.identifier = [{ type: 'IdentityObject', identityHash: `sha256$${hash}`, identityType: 'emailAddress', hashed: true, salt: row.salt }];
  }
  const proofPage = `${site}/proofs/${c.id}`;
  const accepted = seconds(c.accepted_at);
  subject.achievement = {
    id: proofPage,
    type: ['Achievement'],
    achievementType: 'Achievement',
    name: `${role} of “${c.page_title}”`,
    description: `${role} of ${c.page_url} (${c.page_title}), published by ${c.publisher_name}, topic ${c.page_topic || 'none'}, accepted ${accepted.slice(0, 10)}.`,
    criteria: { narrative: `Accepted by ${c.publisher_name} as ${role.toLowerCase()} of the page, on Credence’s public record and in its transparency log.` },
    tag: [c.role, c.page_topic].filter(Boolean),
  };
  const evidence: Record<string, unknown>[] = [
    { id: proofPage, type: ['Evidence'], name: 'The public record of this contribution', description: `Page ${c.page_url}; record ${site}/records/${c.page_id}` },
  ];
  if (c.log_seq !== null) {
    const index = c.log_seq - 1;
    const entry: Record<string, unknown> = {
      id: `${site}/log/${index}`,
      type: ['Evidence'],
      name: `Transparency log entry ${index}`,
      description: `Its inclusion proof: ${site}/v1/log/proof/bundle?index=${index} (C2SP tlog-proof; RFC 9162)`,
    };
    try {
      // The tlog-proof itself, so the log inclusion checks offline (credential:verify); an entry not yet in the
      // witnessed checkpoint has only its link, and a later download carries the proof.
      entry.narrative = await proofBundle(deps, index);
    } catch {
      /* not in a checkpoint yet */
    }
    evidence.push(entry);
  }
  const credential = {
    '@context': [VC_V2_CONTEXT, OB_V3_CONTEXT],
    id: credentialUrn(site, row.id),
    type: ['VerifiableCredential', 'OpenBadgeCredential'],
    issuer: { id: issuer.did, type: ['Profile'], name: 'Credence', url: site },
    validFrom: seconds(row.issued_at),
    name: `${role} of “${c.page_title}”`,
    credentialSubject: subject,
    evidence,
    credentialStatus: status,
  };
  if (format === 'jwt') {
    // VC-JWT (VC-JOSE-COSE): the credential is the JWT's claims set, secured by the JWS itself.
    const key = await importJWK({ ...issuer.privateJwk, alg: 'EdDSA' }, 'EdDSA');
    return new SignJWT(credential as unknown as Record<string, unknown>)
      .setProtectedHeader({ alg: 'EdDSA', typ: 'vc+jwt', cty: 'vc', kid: issuer.keyId })
      .setIssuer(issuer.did)
      .setIssuedAt(Math.floor(Date.parse(row.issued_at) / 1000))
      .sign(key);
  }
  return sign(deps, credential, row.issued_at);
}

async function sign(deps: Deps, credential: object, at: string): Promise<Record<string, unknown>> {
  const issuer = await issuerOf(deps.config);
  const suite = new DataIntegrityProof({ signer: issuer.key.signer(), cryptosuite, date: seconds(at) });
  return vc.issue({ credential, suite, documentLoader: documentLoader(new Map([[issuer.did, issuer.didDocument]])) });
}

/** The row of this contribution's credential for this holder choice, made (with a new status index) the first time. */
async function issuedRow(deps: Deps, accountId: number, contributionId: number, holder: HolderKind) {
  const find = () =>
    deps.db.selectFrom('issued_credentials').selectAll().where('account_id', '=', accountId).where('contribution_id', '=', contributionId).where('holder', '=', holder).executeTakeFirst();
  const found = await find();
  if (found) return found;
  const now = isoNow(deps.clock);
  await deps.db.transaction().execute(async (trx) => {
    if (await trx.selectFrom('issued_credentials').select('id').where('account_id', '=', accountId).where('contribution_id', '=', contributionId).where('holder', '=', holder).executeTakeFirst()) return;
    const { next_index } = await trx
      .updateTable('credential_status_counter')
      .set({ next_index: sql`next_index + 1` })
      .where('id', '=', 1)
      .returning('next_index')
      .executeTakeFirstOrThrow();
    await trx
      .insertInto('issued_credentials')
      .values({
        account_id: accountId,
        contribution_id: contributionId,
        holder,
        salt: holder === 'email_hash' ? randomBytes(16).toString('hex') : null,
        status_index: next_index - 1,
        issued_at: now,
      })
      .execute();
  });
  return (await find())!;
}

/** Every credential of the person leaves the server; their indexes, allocated and without a row, read as revoked. */
export async function forgetCredentials(db: Deps['db'], accountId: number): Promise<void> {
  await db.deleteFrom('issued_credentials').where('account_id', '=', accountId).execute();
}

/** The bits of status list `list` for `purpose`, from the record as it is now. */
export async function statusBits(deps: Deps, purpose: StatusPurpose, list: number): Promise<Set<number>> {
  const lo = list * STATUS_LIST_LENGTH;
  const { next_index } = await deps.db.selectFrom('credential_status_counter').select('next_index').where('id', '=', 1).executeTakeFirstOrThrow();
  const hi = Math.min(lo + STATUS_LIST_LENGTH, next_index);
  const set = new Set<number>();
  if (hi <= lo) return set;
  const rows = await deps.db
    .selectFrom('issued_credentials as i')
    .leftJoin('contributions as c', (j) => j.onRef('c.id', '=', 'i.contribution_id').onRef('c.account_id', '=', 'i.account_id'))
    .select(['i.status_index', 'i.contribution_id', 'c.id as live', 'c.page_id'])
    .where('i.status_index', '>=', lo)
    .where('i.status_index', '<', hi)
    .execute();
  const ids = rows.map((r) => r.contribution_id);
  const removed = new Set<number>();
  for (let at = 0; at < ids.length; at += 500) {
    const part = ids.slice(at, at + 500);
    const ds = await deps.db.selectFrom('moderation_decisions').select('item_id').where('item_kind', '=', 'contribution').where('type', '=', 'remove_item').where('item_id', 'in', part).execute();
    for (const d of ds) removed.add(d.item_id);
  }
  if (purpose === 'revocation') {
    const present = new Set<number>();
    for (const r of rows) if (r.live !== null && !removed.has(r.contribution_id)) present.add(r.status_index);
    // An allocated index without a live row: erased, withdrawn, or removed after a report.
    for (let i = lo; i < hi; i++) if (!present.has(i)) set.add(i - lo);
    return set;
  }
  const pages = [...new Set(rows.filter((r) => r.page_id !== null).map((r) => r.page_id!))];
  const suspended = new Set<number>();
  for (let at = 0; at < pages.length; at += 500) {
    const notices = await deps.db.selectFrom('page_notices').select(['id', 'page_id', 'type', 'notice_date']).where('page_id', 'in', pages.slice(at, at + 500)).execute();
    const byPage = new Map<number, typeof notices>();
    for (const n of notices) byPage.set(n.page_id, [...(byPage.get(n.page_id) ?? []), n]);
    for (const [page, ns] of byPage) if (SUSPENDING.has(standingOf(ns))) suspended.add(page);
  }
  for (const r of rows) if (r.page_id !== null && suspended.has(r.page_id)) set.add(r.status_index - lo);
  return set;
}

/**
 * The status list credential (BitstringStatusListCredential, signed like the credentials), cached as a public read
 * under the `credentials` tag. `list` beyond those allocated is 404.
 */
export async function statusListCredential(deps: Deps, purpose: StatusPurpose, list: number): Promise<Record<string, unknown>> {
  if (!Number.isSafeInteger(list) || list < 0) throw invalid('list', 'must be a whole number');
  return deps.recordCache.getOrLoad(`credentials:status:${purpose}:${list}`, async (track) => {
    track([tag.credentials]);
    const { next_index } = await deps.db.selectFrom('credential_status_counter').select('next_index').where('id', '=', 1).executeTakeFirstOrThrow();
    if (list * STATUS_LIST_LENGTH >= Math.max(next_index, 1)) throw notFound('Status list');
    const bits = await statusBits(deps, purpose, list);
    const { BitstringStatusList } = await import('@digitalbazaar/vc-bitstring-status-list');
    const bsl = new BitstringStatusList({ length: STATUS_LIST_LENGTH });
    for (const b of bits) bsl.setStatus(b, true);
    const issuer = await issuerOf(deps.config);
    const id = statusListUrl(deps.config.siteUrl, purpose, list);
    const now = seconds(isoNow(deps.clock));
    return sign(
      deps,
      {
        '@context': [VC_V2_CONTEXT],
        id,
        type: ['VerifiableCredential', 'BitstringStatusListCredential'],
        issuer: issuer.did,
        validFrom: now,
        credentialSubject: { id: `${id}#list`, type: 'BitstringStatusList', statusPurpose: purpose, encodedList: await bsl.encode() },
      },
      now,
    );
  });
}

/** The person's contributions (still on the record) that came from these submissions: submission id → contribution id. */
export async function contributionsOfSubmissions(deps: Deps, accountId: number, submissionIds: number[]): Promise<Map<number, number>> {
  if (submissionIds.length === 0) return new Map();
  const rows = await deps.db.selectFrom('contributions').select(['id', 'submission_id']).where('account_id', '=', accountId).where('submission_id', 'in', submissionIds).execute();
  return new Map(rows.filter((r) => r.submission_id !== null).map((r) => [r.submission_id!, r.id]));
}
