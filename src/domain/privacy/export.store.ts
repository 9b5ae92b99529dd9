// All SQL of the account export (GDPR Art. 15 and 20): every table that holds something of one account,
// read by that account's id, column by column (never a hash or a secret).
import type { Db } from '../../db/schema.js';

export const accountRow = (db: Db, accountId: number) =>
  db
    .selectFrom('accounts')
    .select(['id', 'username', 'name', 'email', 'email_confirmed_at', 'locale', 'summary', 'topics', 'level', 'trust_score', 'contribution_score', 'accepted_count', 'rejected_count', 'is_admin', 'created_at', 'updated_at'])
    .where('id', '=', accountId)
    .executeTakeFirst();

export const topicRows = (db: Db, accountId: number) =>
  db.selectFrom('account_topics').select(['topic', 'weight', 'accepted', 'authority']).where('account_id', '=', accountId).orderBy('topic').execute();

export const membershipRows = (db: Db, accountId: number) =>
  db
    .selectFrom('publisher_members as m')
    .innerJoin('publishers as p', 'p.id', 'm.publisher_id')
    .select(['p.slug', 'p.name', 'm.role', 'm.created_at'])
    .where('m.account_id', '=', accountId)
    .orderBy('p.slug')
    .execute();

/** Every publication the account ever joined, present ones included (what links publications into one source). */
export const membershipHistoryRows = (db: Db, accountId: number) =>
  db
    .selectFrom('publisher_member_history as h')
    .innerJoin('publishers as p', 'p.id', 'h.publisher_id')
    .select(['p.slug', 'p.name', 'h.since'])
    .where('h.account_id', '=', accountId)
    .orderBy('p.slug')
    .execute();

export const invitationRows = (db: Db, accountId: number) =>
  db
    .selectFrom('publisher_invitations as i')
    .innerJoin('publishers as p', 'p.id', 'i.publisher_id')
    .innerJoin('accounts as by', 'by.id', 'i.invited_by')
    .select(['p.slug', 'i.role', 'by.username as invited_by', 'i.created_at'])
    .where('i.account_id', '=', accountId)
    .orderBy('i.id')
    .execute();

export const sessionRows = (db: Db, accountId: number) =>
  db.selectFrom('sessions').select(['created_at', 'expires_at', 'ended_at', 'device']).where('account_id', '=', accountId).orderBy('id').execute();

export const apiKeyRows = (db: Db, accountId: number) =>
  db
    .selectFrom('api_keys as k')
    .leftJoin('publishers as p', 'p.id', 'k.publisher_id')
    .select(['k.name', 'k.prefix', 'k.last4', 'p.slug as publisher', 'k.created_at', 'k.expires_at', 'k.revoked_at', 'k.last_used_at'])
    .where('k.account_id', '=', accountId)
    .orderBy('k.id')
    .execute();

export const webhookRows = (db: Db, accountId: number) =>
  db
    .selectFrom('webhooks as w')
    .leftJoin('publishers as p', 'p.id', 'w.publisher_id')
    .select(['w.id', 'w.url', 'w.format', 'p.slug as publisher', 'w.events', 'w.enabled', 'w.created_at', 'w.disabled_at'])
    .where('w.account_id', '=', accountId)
    .orderBy('w.id')
    .execute();

export const submissionRows = (db: Db, accountId: number) =>
  db
    .selectFrom('submissions as s')
    .innerJoin('pages as p', 'p.id', 's.page_id')
    .select([
      's.id',
      's.kind',
      's.status',
      'p.url as page_url',
      's.summary',
      's.before_text',
      's.after_text',
      's.reason',
      's.sources',
      's.created_at',
      's.decided_at',
      's.decision_note',
    ])
    .where('s.account_id', '=', accountId)
    .orderBy('s.id')
    .execute();

export const contributionRows = (db: Db, accountId: number) =>
  db
    .selectFrom('contributions as c')
    .innerJoin('pages as p', 'p.id', 'c.page_id')
    .select(['c.id', 'c.role', 'p.url as page_url', 'c.summary', 'c.accepted_at', 'c.asserted_by', 'c.consent', 'c.log_seq'])
    .where('c.account_id', '=', accountId)
    .orderBy('c.id')
    .execute();

export const withdrawnRows = (db: Db, accountId: number) =>
  db
    .selectFrom('withdrawn_contributions as w')
    .innerJoin('pages as p', 'p.id', 'w.page_id')
    .select(['w.id', 'w.role', 'p.url as page_url', 'w.accepted_at', 'w.withdrawn_at'])
    .where('w.account_id', '=', accountId)
    .orderBy('w.id')
    .execute();

export const claimRows = (db: Db, accountId: number) =>
  db
    .selectFrom('author_claims as a')
    .innerJoin('pages as p', 'p.id', 'a.page_id')
    .innerJoin('publishers as pub', 'pub.id', 'a.publisher_id')
    .select(['a.id', 'p.url as page_url', 'pub.slug as publisher', 'a.state', 'a.created_at', 'a.decided_at'])
    .where('a.account_id', '=', accountId)
    .orderBy('a.id')
    .execute();

export const authorLinkRows = (db: Db, accountId: number) =>
  db
    .selectFrom('author_links as l')
    .innerJoin('publishers as p', 'p.id', 'l.publisher_id')
    .select(['l.id', 'p.slug as publisher', 'l.site', 'l.user_id', 'l.display_name', 'l.state', 'l.created_at', 'l.decided_at'])
    .where('l.account_id', '=', accountId)
    .orderBy('l.id')
    .execute();

export const preferenceRows = (db: Db, accountId: number) =>
  db
    .selectFrom('claim_preferences as c')
    .innerJoin('publishers as p', 'p.id', 'c.publisher_id')
    .select(['p.slug as publisher', 'c.preference', 'c.created_at'])
    .where('c.account_id', '=', accountId)
    .orderBy('p.slug')
    .execute();

export const takenRequestRows = (db: Db, accountId: number) =>
  db.selectFrom('requests').select(['id', 'title', 'status', 'taken_at']).where('taken_by', '=', accountId).orderBy('id').execute();

export const openingRows = (db: Db, accountId: number) =>
  db.selectFrom('change_openings').select(['seq', 'pointer']).where('account_id', '=', accountId).orderBy('seq').execute();

export const noticesOffRows = (db: Db, accountId: number) =>
  db.selectFrom('mail_preferences').select(['kind', 'updated_at']).where('account_id', '=', accountId).orderBy('kind').execute();

export const mailRows = (db: Db, accountId: number) =>
  db.selectFrom('mail_outbox').select(['kind', 'status', 'created_at', 'sent_at']).where('account_id', '=', accountId).orderBy('id').execute();

export const interestRows = (db: Db, accountId: number) =>
  db
    .selectFrom('declared_interests')
    .select(['subject', 'name', 'kind', 'note', 'declared_at', 'ended_at'])
    .where('account_id', '=', accountId)
    .orderBy('id')
    .execute();
