// Leaving for good: erase an account, export what the service holds about one, and re-apply erasures
// after a backup is restored. Erasure keeps the pages' history (accepted work stays, naming "a former contributor")
// and forgets the person: their row and everything that was only theirs is deleted, the openings of every log
// entry about them too (the entries and so every proof stay as they were), and what named them in stored payloads
// is redacted, found by reference (mentions.ts). docs/decisions/erasure.md, docs/decisions/erasure-by-reference.md.
import { appendFile, mkdir, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { FORMER_CONTRIBUTOR } from '../accounts/rules.js';
import { findAccountById, findAccountByUsername } from '../accounts/account.store.js';
import { checkThrottle, recordFailure, recordSuccess, throttleKeys } from '../accounts/login-throttle.js';
import { appendChange } from '../changes/change-log.js';
import { deleteOpeningsOf } from '../changes/change.store.js';
import { isoNow } from '../clock.js';
import type { Deps } from '../deps.js';
import { DomainError, invalid, notFound } from '../errors.js';
import { withdrawAllPending } from '../submissions/submission.service.js';
import { sha256 } from '../tokens.js';
import * as store from './erasure.store.js';

/** One line of the erasure list: enough to find the account again in a restored backup, nothing about the person. */
export interface ErasureRecord {
  account_id: number;
  account_created_at: string;
  erased_at: string;
}

export interface ErasureReport extends ErasureRecord {
  /** Accepted work kept in the pages' history, now naming the former contributor. */
  kept_work: number;
  withdrawn_submissions: number;
  released_requests: number;
  deleted_webhooks: number;
  forgotten_openings: number;
}

class LastOwner extends DomainError {
  constructor(slugs: string[]) {
    super(
      'conflict',
      `You are the only owner of ${slugs.join(', ')}: make another member an owner (or transfer ownership) first, then delete your account`,
      [{ field: 'publications', message: slugs.join(', ') }],
    );
  }
}

/** The person erases themselves: their session, and their password again (a left-open session is not enough). */
export async function eraseOwnAccount(deps: Deps, accountId: number, password: string, ip: string): Promise<ErasureReport> {
  const account = await findAccountById(deps.db, accountId);
  if (!account) throw notFound('Account');
  const keys = throttleKeys(account.email, ip);
  await checkThrottle(deps, keys);
  if (!(await deps.passwords.verify(password, account.password_hash, `ip:${ip}`))) {
    await recordFailure(deps, keys);
    throw invalid('password', 'is not your password');
  }
  await recordSuccess(deps, keys);
  return eraseAccount(deps, accountId);
}

/** An operator erases an account by username (`credence accounts:erase`), for a request received by other means. */
export async function eraseByUsername(deps: Deps, username: string): Promise<ErasureReport> {
  const account = await findAccountByUsername(deps.db, username.toLowerCase());
  if (!account || account.username === FORMER_CONTRIBUTOR.username) throw notFound('Account');
  return eraseAccount(deps, account.id);
}

/**
 * Erase one account in one transaction, then scrub the freed space and add it to the erasure list. `force` (a
 * re-applied erasure) skips the last-owner rule: that person handed their publications over before, in a history
 * the restored backup does not hold.
 */
export async function eraseAccount(deps: Deps, accountId: number, opts: { force?: boolean } = {}): Promise<ErasureReport> {
  const now = isoNow(deps.clock);
  let mailIds: number[] = [];
  const report = await deps.db.transaction().execute(async (trx) => {
    const account = await findAccountById(trx, accountId);
    if (!account || account.username === FORMER_CONTRIBUTOR.username) throw notFound('Account');
    const sole = await store.soleOwnerships(trx, accountId);
    if (sole.length > 0 && !opts.force) throw new LastOwner(sole);
    const formerId = await store.formerContributorId(trx, now);
    const withdrawn = await withdrawAllPending(trx, accountId, FORMER_CONTRIBUTOR, now);
    const moved = await store.reassignWork(trx, accountId, formerId, now);
    const deletedWebhooks = await store.deleteWebhooksOf(trx, accountId);
    const forgotten = await deleteOpeningsOf(trx, accountId);
    const redacted = await store.redactMentions(trx, accountId, { username: account.username, name: account.name });
    mailIds = [...(await store.mailTo(trx, accountId)), ...redacted.mailIds];
    await store.forgetThrottle(trx, sha256(account.email));
    await store.retireUsername(trx, account.username, now);
    const record = { account_id: accountId, account_created_at: account.created_at, erased_at: now };
    await store.recordErasure(trx, record);
    await store.deleteAccount(trx, accountId);
    // Every cached answer that showed them (records, embeds, the directory) depends on their account's tag.
    await appendChange(trx, { kind: 'contributor.erased', ids: { accountId }, data: {}, now });
    return {
      ...record,
      kept_work: moved.keptWork,
      withdrawn_submissions: withdrawn,
      released_requests: moved.releasedRequests,
      deleted_webhooks: deletedWebhooks,
      forgotten_openings: forgotten,
    };
  });
  await deps.changes.committed();
  await store.scrubFreedSpace(deps.db);
  if (!deps.config.smtpUrl) await forgetMailFiles(path.join(deps.config.dataDir, 'mail'), mailIds);
  if (deps.config.erasureList) await appendToList(deps.config.erasureList, recordOf(report));
  return report;
}

/**
 * The file copy of the erasure list. The erasure has committed by now, and the database's own list (`erasures`,
 * `credence erasures:export`) has it too, so a file that cannot be written does not undo or fail the erasure.
 */
async function appendToList(file: string, record: ErasureRecord): Promise<void> {
  try {
    await mkdir(path.dirname(file), { recursive: true });
    await appendFile(file, `${JSON.stringify(record)}\n`, { mode: 0o600 });
  } catch {
    // Left to `credence erasures:export`, which reads the database's list.
  }
}

/**
 * Without SMTP_URL every message is an .eml file (and its text beside it, .txt) under DATA_DIR/mail, named by its outbox id (jobs/mail.ts): those
 * to the person or about them go with them, found by id. A file that cannot be removed is left (a development
 * copy, not the record).
 */
async function forgetMailFiles(dir: string, mailIds: number[]): Promise<void> {
  if (mailIds.length === 0) return;
  const prefixes = new Set(mailIds.map((id) => `${String(id).padStart(8, '0')}-`));
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => (n.endsWith('.eml') || n.endsWith('.txt')) && prefixes.has(n.slice(0, 9)));
  } catch {
    return;
  }
  for (const name of names) await rm(path.join(dir, name), { force: true }).catch(() => {});
}

const recordOf = (r: ErasureRecord): ErasureRecord => ({ account_id: r.account_id, account_created_at: r.account_created_at, erased_at: r.erased_at });

/** Parse an erasure list file's text; a line that is not a record is an error naming its number. */
export function parseErasureList(text: string): ErasureRecord[] {
  const out: ErasureRecord[] = [];
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    let r: Partial<ErasureRecord>;
    try {
      r = JSON.parse(line) as Partial<ErasureRecord>;
    } catch {
      throw invalid('erasure list', `line ${i + 1} is not JSON`);
    }
    if (!Number.isInteger(r.account_id) || typeof r.account_created_at !== 'string' || typeof r.erased_at !== 'string') {
      throw invalid('erasure list', `line ${i + 1} is not an erasure record`);
    }
    out.push({ account_id: r.account_id!, account_created_at: r.account_created_at, erased_at: r.erased_at });
  });
  return out;
}

/**
 * Erase again everyone the list names who is back (a backup taken before their erasure was restored): the same
 * account id created at the same moment. Accounts that are gone already, or that are someone else, are left alone.
 */
export async function reapplyErasures(deps: Deps, records: ErasureRecord[]): Promise<{ reapplied: number[]; alreadyErased: number }> {
  const reapplied: number[] = [];
  let alreadyErased = 0;
  for (const r of records) {
    const account = await findAccountById(deps.db, r.account_id);
    if (!account || account.created_at !== r.account_created_at) {
      alreadyErased++;
      continue;
    }
    await eraseAccount(deps, r.account_id, { force: true });
    reapplied.push(r.account_id);
  }
  return { reapplied, alreadyErased };
}

/** The database's own erasure list (ids and times only), for `credence erasures:export`. */
export const listErasures = (deps: Deps): Promise<ErasureRecord[]> => store.listErasures(deps.db);
