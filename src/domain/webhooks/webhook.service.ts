// Account webhooks (SPEC §10, §16): register, list with delivery health, change (re-enable, disable, rotate the
// secret, new URL or events), delete, read the attempt log, redeliver. Session only; every read takes the owner.
import { isUniqueViolation } from '../../db/errors.js';
import { DomainError, conflict, forbidden, notFound } from '../errors.js';
import { recordManual, sendOnce } from './attempt.js';
import { addDays, isoNow } from '../clock.js';
import type { Db, Deps } from '../deps.js';
import { requireMember } from '../publishers/publisher.service.js';
import { lockAccount } from '../accounts/account.store.js';
import { listMemberships, lockPublisher, ownedPublisherIds } from '../publishers/publisher.store.js';
import { EVENTS_BY_FORMAT, type WebhookFormat } from './events.js';
import { newWebhookSecret } from './signature.js';
import { minuteOf } from './schedule.js';
import { checkWebhookHost, checkWebhookUrl, destinationOf } from './target.js';
import * as store from './webhook.store.js';

/** After a rotation the previous secret keeps signing for this long, so receivers can switch without a gap. */
export const ROTATION_OVERLAP_DAYS = 1;

export interface WebhookView {
  row: store.WebhookRow;
  health: { pending: number; attempts24h: number; successes24h: number };
}

export interface RegisterInput {
  url: string;
  events?: string[] | undefined;
  format?: WebhookFormat | undefined;
  publisher?: string | undefined;
}

export interface ChangeInput {
  url?: string | undefined;
  events?: string[] | undefined;
  enabled?: boolean | undefined;
  rotate_secret?: boolean | undefined;
}

/** The events asked for, each one of the format's; all of them when none are named. */
function checkEvents(format: WebhookFormat, events: string[] | undefined): string[] {
  const allowed = EVENTS_BY_FORMAT[format];
  if (events === undefined) return [...allowed];
  const details = events.flatMap((e, i) =>
    (allowed as readonly string[]).includes(e) ? [] : [{ field: `events.${i}`, message: `must be one of: ${allowed.join(', ')}` }],
  );
  if (details.length > 0) {
    const bad = events.filter((e) => !(allowed as readonly string[]).includes(e));
    throw new DomainError('invalid_request',
      `${bad.join(', ')} ${bad.length === 1 ? 'is not an event' : 'are not events'} of ${format} webhooks; the events are: ${allowed.join(', ')}`,
      details,
    );
  }
  return [...new Set(events)];
}

/**
 * The publication whose pages' events the webhook receives: named, or the caller's only one (api_v1 only). None for
 * a person's own webhook (`contributor`): it hears what names its account, whichever publication did it.
 */
async function publisherFor(deps: Deps, accountId: number, format: WebhookFormat, slug: string | undefined) {
  if (format === 'contributor') {
    if (slug === undefined) return null;
    throw new DomainError('invalid_request', 'A contributor webhook is your own: it hears what names you, whichever publication did it, and takes no publisher', [
      { field: 'publisher', message: 'must be left out for format contributor' },
    ]);
  }
  if (slug) {
    const { publisher, role } = await requireMember(deps, accountId, slug);
    // The one /v1 endpoint is the publication's: only an owner sets it (an editor could otherwise take it over).
    if (format === 'v1' && role !== 'owner') throw forbidden('Only an owner of the publication can register its v1 webhook');
    return publisher;
  }
  if (format === 'v1') {
    throw new DomainError('missing_parameter', 'A v1 webhook is the one endpoint of a publisher: name it with publisher (its slug)', [
      { field: 'publisher', message: 'is required for format v1' },
    ]);
  }
  const memberships = await listMemberships(deps.db, accountId);
  if (memberships.length === 1) return memberships[0]!;
  if (memberships.length === 0) throw forbidden('Webhooks carry the events of a publication’s pages; this account is not a member of any publication');
  throw new DomainError('missing_parameter', 'This account belongs to several publications; name one with publisher', [
    { field: 'publisher', message: 'is required when the account belongs to several publications' },
  ]);
}

async function view(deps: Deps, rows: store.WebhookRow[]): Promise<WebhookView[]> {
  const since = new Date(deps.clock.now().getTime() - 86_400_000).toISOString();
  const health = await store.healthOf(
    deps.db,
    rows.map((r) => r.id),
    since,
  );
  return rows.map((row) => {
    const h = health.get(row.id) ?? { pending: 0, attempts: 0, successes: 0 };
    return { row, health: { pending: h.pending, attempts24h: h.attempts, successes24h: h.successes } };
  });
}

/**
 * The webhook, if the account registered it or owns its publication (owners manage every publication-level
 * resource); 404 otherwise, indistinguishable from one that does not exist.
 */
async function requireWebhook(deps: Deps, accountId: number, id: number): Promise<store.WebhookRow> {
  const row = await store.findWebhookFor(deps.db, accountId, await ownedPublisherIds(deps.db, accountId), id);
  // Another account's webhook is indistinguishable from one that does not exist.
  if (!row) throw notFound('Webhook');
  return row;
}

export async function getWebhook(deps: Deps, accountId: number, id: number): Promise<WebhookView> {
  return (await view(deps, [await requireWebhook(deps, accountId, id)]))[0]!;
}

/** Whose webhook it is for the one-per-URL rule: the publication's (whoever registered it), or a person's own. */
interface Owner {
  accountId: number;
  publisher: { id: number; slug: string } | null;
}

const duplicate = (owner: Owner, format: WebhookFormat) =>
  new DomainError(
    'conflict',
    owner.publisher
      ? `${owner.publisher.slug} has a ${format} webhook for this URL already; change that one instead`
      : `You have a ${format} webhook for this URL already; change that one instead`,
    [{ field: 'url', message: `is registered already (format ${format})` }],
  );

/**
 * 409 when the owner has a webhook of this format for this URL (other than `except`), or, for a new one, when the
 * account or the publication holds its cap. Every event goes to every endpoint that wants it: without these, one
 * account could register the same receiver 1,000 times and have each event sent 1,000 times.
 */
async function assertRoom(db: Db, deps: Deps, owner: Owner, format: WebhookFormat, url: string, except?: number): Promise<void> {
  if (await store.hasWebhookFor(db, { accountId: owner.accountId, publisherId: owner.publisher?.id ?? null, format, url, except })) {
    throw duplicate(owner, format);
  }
  if (except !== undefined) return;
  const perAccount = deps.config.webhooksPerAccount;
  if ((await store.countRegisteredBy(db, owner.accountId)) >= perAccount) {
    throw new DomainError('conflict', `An account holds at most ${perAccount} webhooks; delete one first`, [
      { field: 'limit', message: `at most ${perAccount} webhooks per account (WEBHOOKS_PER_ACCOUNT)` },
    ]);
  }
  const perPublication = deps.config.webhooksPerPublication;
  if (owner.publisher && (await store.countOfPublisher(db, owner.publisher.id)) >= perPublication) {
    throw new DomainError('conflict', `${owner.publisher.slug} has ${perPublication} webhooks, the most a publication may; delete one first`, [
      { field: 'limit', message: `at most ${perPublication} webhooks per publication (WEBHOOKS_PER_PUBLICATION)` },
    ]);
  }
}

/**
 * The locks a webhook change takes before counting: the publication's, then the account's (the order membership
 * changes take them in), so two registrations at once cannot both take the last place or both add one URL.
 */
async function lockOwner(trx: Db, deps: Deps, owner: Owner): Promise<void> {
  if (owner.publisher) await lockPublisher(trx, deps.dialect, owner.publisher.id);
  await lockAccount(trx, deps.dialect, owner.accountId);
}

export async function registerWebhook(deps: Deps, accountId: number, input: RegisterInput): Promise<{ webhook: WebhookView; secret: string }> {
  const format = input.format ?? 'api_v1';
  const url = checkWebhookUrl(input.url, deps.config.webhookAllowPrivate);
  const events = checkEvents(format, input.events);
  const publisher = await publisherFor(deps, accountId, format, input.publisher);
  const owner: Owner = { accountId, publisher };
  // Checked once before the name is resolved, so a caller at its cap costs no DNS lookup; again under the lock.
  await assertRoom(deps.db, deps, owner, format, url);
  await checkWebhookHost(url, deps.config.webhookAllowPrivate, deps.resolve);
  const secret = newWebhookSecret();
  let id: number;
  try {
    id = await deps.db.transaction().execute(async (trx) => {
      await lockOwner(trx, deps, owner);
      await assertRoom(trx, deps, owner, format, url);
      return store.insertWebhook(trx, {
        account_id: accountId,
        publisher_id: publisher?.id ?? null,
        format,
        url,
        events,
        secret,
        from_event_id: await store.newestEventId(trx),
        now: isoNow(deps.clock),
      });
    });
  } catch (err) {
    if (isUniqueViolation(err)) {
      if (format === 'v1' && publisher) throw conflict(`${publisher.slug} has a v1 webhook already; change it or delete it first`);
      throw duplicate(owner, format);
    }
    throw err;
  }
  return { webhook: await getWebhook(deps, accountId, id), secret };
}

export async function listWebhooks(deps: Deps, accountId: number, page: number, perPage: number) {
  const owned = await ownedPublisherIds(deps.db, accountId);
  const [total, rows] = await Promise.all([
    store.countWebhooks(deps.db, accountId, owned),
    store.listWebhooks(deps.db, accountId, owned, perPage, (page - 1) * perPage),
  ]);
  return { total, items: await view(deps, rows) };
}

export async function changeWebhook(
  deps: Deps,
  accountId: number,
  id: number,
  input: ChangeInput,
): Promise<{ webhook: WebhookView; secret: string | null }> {
  const row = await requireWebhook(deps, accountId, id);
  const now = isoNow(deps.clock);
  const url = input.url === undefined ? undefined : checkWebhookUrl(input.url, deps.config.webhookAllowPrivate);
  const events = input.events === undefined ? undefined : checkEvents(row.format, input.events);
  const owner: Owner = { accountId: row.account_id, publisher: row.publisher_id === null ? null : { id: row.publisher_id, slug: row.publisher_slug ?? '' } };
  if (url !== undefined && url !== row.url) {
    await assertRoom(deps.db, deps, owner, row.format, url, id);
    await checkWebhookHost(url, deps.config.webhookAllowPrivate, deps.resolve);
  }
  const secret = input.rotate_secret ? newWebhookSecret() : null;
  await deps.db
    .transaction()
    .execute(async (trx) => {
      if (url !== undefined && url !== row.url) {
        await lockOwner(trx, deps, owner);
        await assertRoom(trx, deps, owner, row.format, url, id);
      }
      if (url !== undefined || events !== undefined) {
        await store.updateWebhook(trx, row.account_id, id, {
          ...(url !== undefined ? { url } : {}),
          ...(events !== undefined ? { events: JSON.stringify(events) } : {}),
          updated_at: now,
        });
      }
      if (secret) {
        const until = addDays(deps.clock.now(), ROTATION_OVERLAP_DAYS).toISOString();
        await store.rotateSecret(trx, row.account_id, id, secret, until, now);
      }
      if (input.enabled === true && row.enabled === 0) {
        // Re-enabling starts afresh: no failures counted, and every held delivery due now with a new 24-hour window.
        await store.updateWebhook(trx, row.account_id, id, {
          enabled: 1,
          consecutive_failures: 0,
          failing_since: null,
          disabled_at: null,
          disabled_reason: null,
          updated_at: now,
        });
        await store.resumeDeliveries(trx, id, now);
      } else if (input.enabled === false && row.enabled === 1) {
        await store.updateWebhook(trx, row.account_id, id, { enabled: 0, disabled_at: now, disabled_reason: 'owner', updated_at: now });
        await store.holdDeliveries(trx, id, now);
      }
    })
    .catch((err: unknown) => {
      // The unique index under the check made under the lock: the same answer.
      if (isUniqueViolation(err)) throw duplicate(owner, row.format);
      throw err;
    });
  return { webhook: await getWebhook(deps, accountId, id), secret };
}

export async function deleteWebhook(deps: Deps, accountId: number, id: number): Promise<void> {
  const row = await requireWebhook(deps, accountId, id);
  if (!(await store.deleteWebhook(deps.db, row.account_id, id))) throw notFound('Webhook');
}

export async function listAttempts(deps: Deps, accountId: number, id: number, page: number, perPage: number) {
  await requireWebhook(deps, accountId, id);
  const [total, items] = await Promise.all([
    store.countAttempts(deps.db, id),
    store.listAttempts(deps.db, id, perPage, (page - 1) * perPage),
  ]);
  return { total, items };
}

/**
 * Send one delivery again. A delivery still in the endpoint's queue is not sent out of turn: its queue becomes due
 * now and the relay sends it in order (`queued`). A delivery that went through, was given up, or is held by a
 * disabled endpoint is attempted once, now, and the attempt is returned.
 */
export async function redeliver(deps: Deps, accountId: number, id: number, deliveryId: number) {
  await requireWebhook(deps, accountId, id);
  const delivery = await store.findDelivery(deps.db, id, deliveryId);
  if (!delivery) throw notFound('Delivery');
  if (delivery.status === 'pending') {
    await store.pullQueuesForward(deps.db, [id], isoNow(deps.clock));
    return { queued: true, delivery: (await store.findDelivery(deps.db, id, deliveryId))!, attempt: null };
  }
  const endpoint = await store.endpointForSend(deps.db, id);
  if (!endpoint) throw notFound('Webhook');
  const started = deps.clock.now();
  // A send by hand counts against the destination's minute like any other: redelivering in a loop floods nobody.
  const minute = minuteOf(started);
  if ((await store.takeHostSends(deps.db, destinationOf(endpoint.url), minute.start, 1, deps.config.webhookHostDeliveriesPerMinute)) === 0) {
    const wait = Math.max(1, Math.ceil((Date.parse(minute.end) - started.getTime()) / 1000));
    throw new DomainError('rate_limited', `This webhook's host has had its ${deps.config.webhookHostDeliveriesPerMinute} deliveries for this minute; try again in ${wait} s`, undefined, wait);
  }
  const result = await sendOnce(endpoint, delivery, started, { allowPrivate: deps.config.webhookAllowPrivate, ...(deps.resolve ? { resolve: deps.resolve } : {}) });
  const attemptId = await recordManual(deps, delivery, result, started);
  return {
    queued: false,
    delivery: (await store.findDelivery(deps.db, id, deliveryId))!,
    attempt: (await store.findAttempt(deps.db, attemptId))!,
  };
}

/** How far back a replay may reach (docs/webhooks.md, "Replay"): the events the service promises to keep. */
export const REPLAY_RETENTION_DAYS = 30;

/**
 * Ask for every event since a time (`since`) or after a change-log cursor (`after`: a seq of the public feed) to be
 * delivered again to one endpoint, signed as usual and marked as replays. The relay carries it out on its next pass
 * (it builds each format's payloads); the answer is the queued request. Events the endpoint was never owed (before
 * it was registered, of another publication, of a kind it did not subscribe to) are not sent.
 */
export async function requestReplay(deps: Deps, accountId: number, id: number, input: { since?: string | undefined; after?: number | undefined }) {
  await requireWebhook(deps, accountId, id);
  if ((input.since === undefined) === (input.after === undefined)) {
    throw new DomainError('invalid_request', 'Give either since (a time) or after (a change-log cursor)', [{ field: 'since', message: 'give since or after, not both' }]);
  }
  const now = deps.clock.now();
  let since: string;
  if (input.since !== undefined) {
    const t = Date.parse(input.since);
    if (Number.isNaN(t)) throw new DomainError('invalid_request', 'since: must be a date-time', [{ field: 'since', message: 'must be a date-time' }]);
    since = new Date(t).toISOString();
  } else {
    const entry = await deps.db.selectFrom('changes').select('created_at').where('seq', '=', input.after!).executeTakeFirst();
    if (!entry) throw new DomainError('invalid_request', 'after: no change-log entry has this seq', [{ field: 'after', message: 'no change-log entry has this seq' }]);
    // The events of the cursor's own change were written in its transaction, at the same instant: they are included.
    since = entry.created_at;
  }
  const oldest = new Date(now.getTime() - REPLAY_RETENTION_DAYS * 86_400_000).toISOString();
  if (since < oldest) {
    const field = input.since !== undefined ? 'since' : 'after';
    throw new DomainError('invalid_request', `${field}: replays reach back ${REPLAY_RETENTION_DAYS} days, to ${oldest}`, [
      { field, message: `must be within the last ${REPLAY_RETENTION_DAYS} days` },
    ]);
  }
  if (since > now.toISOString()) throw new DomainError('invalid_request', 'since: must not be in the future', [{ field: 'since', message: 'must not be in the future' }]);
  const replayId = await store.insertReplay(deps.db, { webhook_id: id, since, requested_at: now.toISOString() });
  return (await store.findReplay(deps.db, id, replayId))!;
}

export async function getReplay(deps: Deps, accountId: number, id: number, replayId: number) {
  await requireWebhook(deps, accountId, id);
  const r = await store.findReplay(deps.db, id, replayId);
  if (!r) throw notFound('Replay');
  return r;
}
