// How the publication's own systems connect: API keys (the secret shown once, on the page answering the creating
// post, never in a URL) and webhooks (either format, the secret once, delivery health at a glance, the attempt
// log, redelivery, re-enabling). Keys and webhooks belong to the signed-in account, as on the API; these pages
// show the ones that act for this publication.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import * as apiKeys from '../../domain/api-keys/api-key.service.js';
import type { Deps } from '../../domain/deps.js';
import { API_V1_EVENTS, PUBLICATION_FORMATS, V1_EVENTS, type WebhookFormat } from '../../domain/webhooks/events.js';
import * as webhooks from '../../domain/webhooks/webhook.service.js';
import { DomainError, notFound, statusOf } from '../../http/errors.js';
import { itemValidator } from '../../http/validation.js';
import { ApiKeyBody } from '../integration-v1/account.routes.js';
import { presentAttempt, presentWebhook } from '../integration-v1/webhooks.presenter.js';
import { copyable, day, errorsFor, idParam, type Publication, publicationOf, selectField, sendDashboard, stackable, statusBadge, when } from './dashboard.kit.js';
import { html, type SafeHtml } from './html.js';
import { confirmAction, type FieldErrors, field, fieldErrorsOf, notice, pageContext, readForm, Redirect, rulesOf, str } from './kit.js';
import { setFlash, takeFlash } from './flash.js';
import { csrfField } from './layout.js';

const validKey = itemValidator<{ name: string; expires_in_days?: number; publisher?: string | null }>(ApiKeyBody);
const page = { config: { html: true } };

const EVENT_HELP: Record<string, string> = {
  'page.registered': 'a page was registered',
  'submission.received': 'work arrived in the inbox',
  'contribution.accepted': 'work was accepted',
  'contribution.submitted': 'work arrived in the inbox',
  'contribution.withdrawn': 'a contributor withdrew work',
  'request.taken': 'a specialist took a request',
  'panel.updated': 'an expert panel statement on your topics was issued',
  'page.changed': 'a page’s text changed after work on it was accepted',
  'page.notice': 'a notice (a retraction, a correction, …) was put on a page',
};

const FORMAT_LABELS: Record<WebhookFormat, string> = {
  api_v1: 'Integration API (/api/v1): X-Service-* headers',
  v1: 'Public API (/v1): Service-* headers, one per publication',
  contributor: 'Your own: what names you (/api/v1 headers)',
};

/** The one-time secret, on the page that answers the post that made it. */
const secretCard = (title: string, secret: string, what: string): SafeHtml =>
  html`<section class="card secret-card" aria-labelledby="new-secret" tabindex="-1" id="secret"><h2 id="new-secret" class="card-title">${title}</h2>
<p><strong>Copy it now: it is shown only this once.</strong> ${what}</p>${copyable('secret-value', secret, { label: 'the secret' })}</section>`;

type WebhookData = ReturnType<typeof presentWebhook>;

const DELIVERY_NOW: Record<string, string> = { pending: 'tried again soon', held: 'held while paused', succeeded: 'delivered', failed: 'given up' };

/**
 * Which try of its delivery an attempt was (the list is newest first), and where the delivery stands now, said on its
 * newest try only: three failed tries of one delivery read as tries 1, 2 and 3, not as three identical rows.
 */
function tryOf(attempts: { delivery_id: number; delivery_status: string }[], i: number): string {
  const a = attempts[i]!;
  const n = attempts.slice(i).filter((b) => b.delivery_id === a.delivery_id).length;
  const newest = !attempts.slice(0, i).some((b) => b.delivery_id === a.delivery_id);
  return `delivery ${a.delivery_id}, try ${n}${newest ? ` · ${DELIVERY_NOW[a.delivery_status] ?? a.delivery_status}` : ''}`;
}

function health(w: WebhookData): SafeHtml {
  if (w.status === 'disabled') return statusBadge('disabled', w.disabled_reason === 'failures' ? 'disabled after failures' : 'paused');
  if (w.consecutive_failures > 0) return statusBadge('held', `failing: ${w.consecutive_failures} in a row`);
  if (w.last_attempt_at === null) return statusBadge('', 'no deliveries yet');
  return statusBadge('enabled', 'healthy');
}

const rate = (w: WebhookData) => (w.success_rate_24h === null ? '—' : `${Math.round(w.success_rate_24h * 100)}%`);

export function integrationPages(app: FastifyInstance, deps: Deps) {
  // ---------------------------------------------------------------------------------------------------------------
  // API keys.

  const keysPage = async (
    req: FastifyRequest,
    reply: FastifyReply,
    pub: Publication,
    opts: { secret?: string; values?: Record<string, string>; errors?: FieldErrors } = {},
    status = 200,
  ) => {
    const ctx = pageContext(deps, req, reply);
    const now = deps.clock.now();
    const keys = (await apiKeys.listApiKeys(deps, pub.user.accountId)).filter((k) => k.publisher_id === pub.id);
    // Owners also see, and can revoke, the keys other members made for the publication.
    const others = pub.role === 'owner' ? (await apiKeys.listPublicationKeys(deps, pub.user.accountId, pub.slug)).filter((k) => k.account_id !== pub.user.accountId) : [];
    const v = opts.values ?? {};
    const body = html`${notice(req, { revoked: 'The key is revoked: it stops working at once.' })}
${opts.secret ? secretCard('Your new API key', opts.secret, 'We keep only a hash of it. Send it as X-API-Key or Authorization: Bearer.') : ''}
<h2>API keys</h2>
<p class="lede">A publisher key lets your CMS act for ${pub.name}: register pages, open requests, read the inbox and decide. Nothing else. Keys are yours: other members make their own${pub.role === 'owner' ? ', and as an owner you can revoke theirs' : ''}. Keys for your own contributions are on <a href="/me">your page</a>.</p>
<section class="card" aria-labelledby="create-key"><h3 id="create-key" class="card-title">Create a key</h3>
<form method="post" action="${pub.base}/keys" class="stack" novalidate>${csrfField(ctx)}
${field({ name: 'name', label: 'Name', value: v.name, error: opts.errors?.name, rules: rulesOf(ApiKeyBody, 'name'), autocomplete: 'off', hint: 'Where it is used, e.g. CMS production' })}
${selectField({
  name: 'expires_in_days',
  label: 'Expires',
  value: v.expires_in_days ?? '',
  error: opts.errors?.expires_in_days,
  options: [
    { value: '', label: 'Never' },
    { value: '30', label: 'In 30 days' },
    { value: '90', label: 'In 90 days' },
    { value: '365', label: 'In a year' },
  ],
})}
<div><button type="submit">Create key</button></div></form></section>
<h3>Your keys for ${pub.name}</h3>
${
  keys.length === 0
    ? html`<p class="muted">No keys yet.</p>`
    : stackable(html`<div class="table-wrap"><table><thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Status</th><th scope="col">Last used</th><th scope="col">Expires</th><th scope="col">Created</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead><tbody>
${keys.map((k) => {
  const s = apiKeys.keyStatus(k, now);
  return html`<tr><td>${k.name}</td><td><code>${k.prefix}…${k.last4}</code></td><td>${statusBadge(s)}</td><td>${when(k.last_used_at, 'never')}</td><td>${k.expires_at ? day(k.expires_at) : html`<span class="muted">never</span>`}</td><td>${day(k.created_at)}</td><td>${
    s === 'active'
      ? confirmAction({ action: `${pub.base}/keys/${k.id}/revoke`, csrf: csrfField(ctx), label: html`Revoke<span class="sr-only"> ${k.name}</span>`, consequence: `Calls with “${k.name}” fail at once. A revoked key cannot be brought back.`, confirm: `Revoke “${k.name}” for good` })
      : ''
  }</td></tr>`;
})}
</tbody></table></div>`)
}
${
  others.length === 0
    ? ''
    : html`<h3>Other members’ keys for ${pub.name}</h3>
<p class="muted">As an owner you can revoke any key that acts for the publication.</p>
${stackable(html`<div class="table-wrap"><table><thead><tr><th scope="col">Name</th><th scope="col">Made by</th><th scope="col">Key</th><th scope="col">Status</th><th scope="col">Last used</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead><tbody>
${others.map((k) => {
  const s = apiKeys.keyStatus(k, now);
  return html`<tr><td>${k.name}</td><td>${k.made_by}</td><td><code>${k.prefix}…${k.last4}</code></td><td>${statusBadge(s)}</td><td>${when(k.last_used_at, 'never')}</td><td>${
    s === 'active'
      ? confirmAction({ action: `${pub.base}/keys/${k.id}/revoke`, csrf: csrfField(ctx), label: html`Revoke<span class="sr-only"> ${k.name} of ${k.made_by}</span>`, consequence: `Calls with “${k.name}” of ${k.made_by} fail at once. A revoked key cannot be brought back.`, confirm: `Revoke “${k.name}” for good` })
      : ''
  }</td></tr>`;
})}
</tbody></table></div>`)}`
}`;
    return sendDashboard(deps, req, reply, pub, 'keys', { title: 'API keys', body }, status);
  };

  // A secret is shown by the GET the post redirects to, once (flash.ts): a reload shows nothing and makes nothing.
  app.get('/dashboard/:slug/keys', page, async (req, reply) => {
    const pub = await publicationOf(deps, req);
    const secret = takeFlash(req, reply, pub.user.token)?.secret;
    return keysPage(req, reply, pub, secret ? { secret } : {});
  });

  app.post('/dashboard/:slug/keys', page, async (req, reply) => {
    const pub = await publicationOf(deps, req);
    const form = readForm(deps, req);
    const values = { name: str(form.name), expires_in_days: str(form.expires_in_days) };
    const days = values.expires_in_days === '' ? undefined : /^[0-9]{1,6}$/.test(values.expires_in_days) ? Number(values.expires_in_days) : values.expires_in_days;
    const checked = validKey({ name: values.name, publisher: pub.slug, ...(days !== undefined ? { expires_in_days: days } : {}) });
    if (!checked.ok) return keysPage(req, reply, pub, { values, errors: fieldErrorsOf(checked.error.details) }, 400);
    const { key, secret } = await apiKeys.createApiKey(deps, pub.user.accountId, checked.value);
    setFlash(req, reply, pub.user.token, { path: `${pub.base}/keys`, name: key.name, secret });
    return reply.redirect(`${pub.base}/keys#secret`, 303);
  });

  app.post('/dashboard/:slug/keys/:id/revoke', page, async (req) => {
    const pub = await publicationOf(deps, req);
    readForm(deps, req);
    const id = idParam(req, 'id', 'API key');
    const mine = (await apiKeys.listApiKeys(deps, pub.user.accountId)).some((k) => k.id === id && k.publisher_id === pub.id);
    // Another member's key of the publication: owners only (the service answers 403 to an editor, 404 to any other key).
    if (mine) await apiKeys.revokeApiKey(deps, pub.user.accountId, id);
    else await apiKeys.revokePublicationKey(deps, pub.user.accountId, pub.slug, id);
    throw new Redirect(`${pub.base}/keys?done=revoked`);
  });

  // ---------------------------------------------------------------------------------------------------------------
  // Webhooks.

  /** The account's webhooks for this publication (an account has few; the service lists them by account). */
  const webhooksOf = async (pub: Publication) => {
    const { items } = await webhooks.listWebhooks(deps, pub.user.accountId, 1, 100);
    const now = deps.clock.now();
    return items.filter((w) => w.row.publisher_id === pub.id).map((w) => presentWebhook(w, now));
  };

  const eventBoxes = (format: WebhookFormat, events: readonly string[], chosen: string[]) =>
    html`<fieldset class="checks"><legend>Events in the ${format === 'api_v1' ? '/api/v1' : '/v1'} format</legend>${events.map(
      (e) =>
        html`<label><input type="checkbox" name="events_${format}" value="${e}"${chosen.includes(e) ? html` checked` : ''}> <span><code>${e}</code> <span class="hint">${EVENT_HELP[e] ?? ''}</span></span></label>`,
    )}</fieldset>`;

  const webhooksPage = async (
    req: FastifyRequest,
    reply: FastifyReply,
    pub: Publication,
    opts: { secret?: string; values?: Record<string, string>; events?: string[]; errors?: FieldErrors } = {},
    status = 200,
  ) => {
    const ctx = pageContext(deps, req, reply);
    const list = await webhooksOf(pub);
    const v = opts.values ?? {};
    const format = (v.format as WebhookFormat | undefined) ?? 'api_v1';
    const e = opts.errors ?? {};
    const body = html`${notice(req, { deleted: 'The webhook is deleted.' })}
${opts.secret ? secretCard('Your webhook’s signing secret', opts.secret, 'Check every delivery’s signature with it: an HMAC-SHA256 of “timestamp.body”.') : ''}
<h2>Webhooks</h2>
<p class="lede">Your systems hear about new pages, new work and decisions as they happen, signed with a secret only you and we know. Failed deliveries are retried for a day; an endpoint still failing after that (20 failures in a row over at least 24 hours) is paused until you re-enable it.</p>
${
  list.length === 0
    ? html`<p class="muted">No webhooks yet.</p>`
    : html`<ul class="plain">${list.map(
        (w) => html`<li class="card hook"><h3 class="card-title"><a class="wrap" href="${pub.base}/webhooks/${w.id}">${w.url}</a></h3>
<p class="who">${health(w)} <span class="muted small">${w.format === 'v1' ? '/v1' : '/api/v1'} format · ${w.events.length} ${w.events.length === 1 ? 'event' : 'events'}</span></p>
<ul class="stats compact"><li><strong>${rate(w)}</strong> delivered, 24 h</li><li><strong>${w.pending}</strong> waiting</li><li><strong>${w.consecutive_failures}</strong> failures in a row</li><li><strong>${
          w.last_attempt_at ? (w.last_status_code === null ? 'no answer' : `HTTP ${w.last_status_code}`) : '—'
        }</strong> last attempt ${w.last_attempt_at ? when(w.last_attempt_at) : ''}</li></ul></li>`,
      )}</ul>`
}
<section class="card" aria-labelledby="register-webhook"><h3 id="register-webhook" class="card-title">Register a webhook</h3>
<form method="post" action="${pub.base}/webhooks" class="stack wide" novalidate>${csrfField(ctx)}
${field({ name: 'url', label: 'Endpoint URL', type: 'url', value: v.url, error: e.url, required: true, hint: 'https, on a public address' })}
<fieldset class="choices"${e.format ? html` aria-describedby="f-format-error"` : ''}><legend>Format</legend>${PUBLICATION_FORMATS.map(
      (f) => html`<label><input type="radio" name="format" value="${f}"${f === format ? html` checked` : ''}> ${FORMAT_LABELS[f]}</label>`,
    )}${e.format ? html`<p class="field-error" id="f-format-error">${e.format}</p>` : ''}</fieldset>
<p class="hint" id="events-hint">Tick the events to receive in the chosen format; none ticked means all of them.</p>
${eventBoxes('api_v1', API_V1_EVENTS, format === 'api_v1' ? (opts.events ?? []) : [])}
${eventBoxes('v1', V1_EVENTS, format === 'v1' ? (opts.events ?? []) : [])}
${e.events ? html`<p class="field-error">${e.events}</p>` : ''}
<div><button type="submit">Register webhook</button></div></form></section>`;
    return sendDashboard(deps, req, reply, pub, 'webhooks', { title: 'Webhooks', body }, status);
  };

  app.get('/dashboard/:slug/webhooks', page, async (req, reply) => {
    const pub = await publicationOf(deps, req);
    const secret = takeFlash(req, reply, pub.user.token)?.secret;
    return webhooksPage(req, reply, pub, secret ? { secret } : {});
  });

  app.post('/dashboard/:slug/webhooks', page, async (req, reply) => {
    const pub = await publicationOf(deps, req);
    const form = readForm(deps, req);
    const values = { url: str(form.url), format: str(form.format) || 'api_v1' };
    const chosen = [form[`events_${values.format}`] ?? []].flat();
    if (!(PUBLICATION_FORMATS as readonly string[]).includes(values.format)) {
      return webhooksPage(req, reply, pub, { values: { ...values, format: 'api_v1' }, errors: { format: `must be one of: ${PUBLICATION_FORMATS.join(', ')}` } }, 400);
    }
    if (values.url === '') return webhooksPage(req, reply, pub, { values, events: chosen, errors: { url: 'is required' } }, 400);
    try {
      const { secret } = await webhooks.registerWebhook(deps, pub.user.accountId, {
        url: values.url,
        format: values.format as WebhookFormat,
        publisher: pub.slug,
        ...(chosen.length > 0 ? { events: chosen } : {}),
      });
      setFlash(req, reply, pub.user.token, { path: `${pub.base}/webhooks`, name: values.url, secret });
      return reply.redirect(`${pub.base}/webhooks#secret`, 303);
    } catch (err) {
      if (err instanceof DomainError && statusOf(err) < 500) {
        const errors = errorsFor(err, 'url');
        // An event of the other format names itself in the message, not in the per-item detail.
        if (errors.events) errors.events = err.message;
        // A cap names no field of the form: it is said where the URL is asked for.
        if (errors.limit) errors.url = err.message;
        return webhooksPage(req, reply, pub, { values, events: chosen, errors }, statusOf(err));
      }
      throw err;
    }
  });

  /** One webhook of the account, only when it is this publication's (404 otherwise). */
  const ownWebhook = async (req: FastifyRequest, pub: Publication) => {
    const view = await webhooks.getWebhook(deps, pub.user.accountId, idParam(req, 'id', 'Webhook'));
    if (view.row.publisher_id !== pub.id) throw notFound('Webhook');
    return presentWebhook(view, deps.clock.now());
  };

  const webhookPage = async (req: FastifyRequest, reply: FastifyReply, pub: Publication, secret?: string) => {
    const ctx = pageContext(deps, req, reply);
    const w = await ownWebhook(req, pub);
    const attempts = (await webhooks.listAttempts(deps, pub.user.accountId, w.id, 1, 20)).items.map(presentAttempt);
    const action = (path: string, label: string, cls = 'secondary') =>
      html`<form method="post" action="${pub.base}/webhooks/${w.id}/${path}" class="inline">${csrfField(ctx)}<button type="submit" class="${cls}">${label}</button></form>`;
    const body = html`${notice(req, {
      enabled: 'Re-enabled: the failure count starts again at 0 and held deliveries are on their way.',
      paused: 'Paused: new events wait here until you re-enable it.',
      redelivered: 'Sent again: see the attempt below.',
      queued: 'The delivery was still queued: it goes out next, in order.',
    })}
${secret ? secretCard('The new signing secret', secret, `The previous secret keeps signing alongside it until ${w.previous_secret_expires_at ?? 'tomorrow'}, so you can switch without a gap.`) : ''}
<p class="crumbs"><a href="${pub.base}/webhooks">Webhooks</a> /</p>
<h2 class="wrap">${w.url}</h2>
<p>${health(w)} ${w.status === 'disabled' && w.disabled_at ? html`<span class="muted">since ${when(w.disabled_at)}</span>` : ''}</p>
<ul class="stats">
<li><strong>${rate(w)}</strong> delivered in the last 24 h</li>
<li><strong>${w.consecutive_failures}</strong> failures in a row</li>
<li><strong>${w.pending}</strong> waiting</li>
<li><strong>${w.last_status_code ?? '—'}</strong> last answer</li>
</ul>
<dl class="facts"><dt>Format</dt><dd>${FORMAT_LABELS[w.format]}</dd><dt>Events</dt><dd>${w.events.map((e, i) => html`${i > 0 ? ', ' : ''}<code>${e}</code>`)}</dd>
<dt>Last success</dt><dd>${when(w.last_success_at, 'never')}</dd><dt>Last failure</dt><dd>${when(w.last_failure_at, 'never')}</dd><dt>Registered</dt><dd>${day(w.created_at)}</dd></dl>
<div class="actions">${w.status === 'disabled' ? action('enable', 'Re-enable', '') : action('pause', 'Pause')}${action('rotate', 'Rotate the secret')}${confirmAction({ action: `${pub.base}/webhooks/${w.id}/delete`, csrf: csrfField(ctx), label: 'Delete webhook', consequence: `${w.url} stops hearing from ${pub.name} at once; its ${w.pending} waiting deliveries and every recorded attempt are deleted with it. A deleted webhook cannot be brought back: to hear again, register it anew with a new secret.`, confirm: 'Delete the webhook for good', cls: 'danger' })}</div>
<h3>Recent attempts</h3>
${
  attempts.length === 0
    ? html`<p class="muted">No attempts yet: deliveries start with the next event.</p>`
    : stackable(html`<div class="table-wrap"><table><thead><tr><th scope="col">When</th><th scope="col">Event</th><th scope="col">Result</th><th scope="col">Time</th><th scope="col">Answer</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead><tbody>
${attempts.map(
  (a, i) => html`<tr><td>${when(a.attempted_at)}${a.manual ? html`<br><span class="muted small">redelivery</span>` : ''}</td><td><code>${a.event}</code><br><span class="muted small">${tryOf(attempts, i)}</span></td><td>${statusBadge(a.success ? 'succeeded' : 'failed', a.status_code === null ? 'no answer' : `HTTP ${a.status_code}`)}${
    a.error ? html`<br><span class="small">${a.error}</span>` : ''
  }</td><td>${a.duration_ms} ms</td><td>${a.response_body ? html`<details><summary>Show</summary><pre>${a.response_body}</pre></details>` : html`<span class="muted">no body</span>`}</td><td><form method="post" action="${pub.base}/webhooks/${w.id}/deliveries/${a.delivery_id}/redeliver" class="inline">${csrfField(ctx)}<button type="submit" class="secondary small">Redeliver<span class="sr-only"> delivery ${a.delivery_id}</span></button></form></td></tr>`,
)}
</tbody></table></div>`)
}`;
    return sendDashboard(deps, req, reply, pub, 'webhooks', { title: 'Webhook', body });
  };

  app.get('/dashboard/:slug/webhooks/:id', page, async (req, reply) => {
    const pub = await publicationOf(deps, req);
    return webhookPage(req, reply, pub, takeFlash(req, reply, pub.user.token)?.secret);
  });

  const change = (path: string, input: webhooks.ChangeInput, done: string) =>
    app.post(`/dashboard/:slug/webhooks/:id/${path}`, page, async (req) => {
      const pub = await publicationOf(deps, req);
      readForm(deps, req);
      const w = await ownWebhook(req, pub);
      await webhooks.changeWebhook(deps, pub.user.accountId, w.id, input);
      throw new Redirect(`${pub.base}/webhooks/${w.id}?done=${done}`);
    });
  change('enable', { enabled: true }, 'enabled');
  change('pause', { enabled: false }, 'paused');

  app.post('/dashboard/:slug/webhooks/:id/rotate', page, async (req, reply) => {
    const pub = await publicationOf(deps, req);
    readForm(deps, req);
    const w = await ownWebhook(req, pub);
    const { secret } = await webhooks.changeWebhook(deps, pub.user.accountId, w.id, { rotate_secret: true });
    if (secret) setFlash(req, reply, pub.user.token, { path: `${pub.base}/webhooks/${w.id}`, name: w.url, secret });
    return reply.redirect(`${pub.base}/webhooks/${w.id}#secret`, 303);
  });

  app.post('/dashboard/:slug/webhooks/:id/delete', page, async (req) => {
    const pub = await publicationOf(deps, req);
    readForm(deps, req);
    const w = await ownWebhook(req, pub);
    await webhooks.deleteWebhook(deps, pub.user.accountId, w.id);
    throw new Redirect(`${pub.base}/webhooks?done=deleted`);
  });

  app.post('/dashboard/:slug/webhooks/:id/deliveries/:delivery_id/redeliver', page, async (req) => {
    const pub = await publicationOf(deps, req);
    readForm(deps, req);
    const w = await ownWebhook(req, pub);
    const r = await webhooks.redeliver(deps, pub.user.accountId, w.id, idParam(req, 'delivery_id', 'Delivery'));
    throw new Redirect(`${pub.base}/webhooks/${w.id}?done=${r.queued ? 'queued' : 'redelivered'}`);
  });
}
