// Password and sessions at /me/security, leaving (the export and the account's deletion), and API keys at /me/keys.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import * as accounts from '../../domain/accounts/account.service.js';
import * as apiKeys from '../../domain/api-keys/api-key.service.js';
import type { Deps } from '../../domain/deps.js';
import { DomainError, statusOf } from '../../http/errors.js';
import { itemValidator } from '../../http/validation.js';
import { ApiKeyBody } from '../integration-v1/account.routes.js';
import { PasswordBody } from '../integration-v1/auth.routes.js';
import { html } from './html.js';
import { csrfField } from './layout.js';
import { eraseOwnAccount } from '../../domain/privacy/erasure.service.js';
import { exportAccount } from '../../domain/privacy/export.service.js';
import { confirmAction, type FieldErrors, field, notice, requireUser, rulesOf, str } from './kit.js';
import { setFlash, takeFlash } from './flash.js';
import { endWebSession, type WebUser } from './session.js';
import { date, empty } from './views.js';
import { formErrors, formUser as formUserOf, humane, meFrame, page, withId } from './me.kit.js';

const validPassword = itemValidator<{ current_password: string; new_password: string }>(PasswordBody);
const validKey = itemValidator<{ name: string; expires_in_days?: number; publisher?: string | null }>(ApiKeyBody);
export function meSecurityPages(fastify: FastifyInstance, deps: Deps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const frame = meFrame(deps);
  const formUser = (req: FastifyRequest) => formUserOf(deps, req);

  // ---- Password and sessions ----

  const securityPage = async (req: FastifyRequest, reply: FastifyReply, errors: FieldErrors = {}, status = 200) => {
    const me = requireUser(req);
    const sessions = await accounts.listSessions(deps, me.accountId, me.sessionId);
    const others = sessions.filter((s) => !s.current).length;
    return frame(
      req,
      reply,
      'Password and sessions',
      (ctx) => html`${notice(req, {
        changed: 'Your password is changed. Every other session has ended.',
        'changed-keys': 'Your password is changed. Every other session has ended, and every API key of your account is revoked.',
        'signed-out': 'That browser is signed out.',
        'others-signed-out': 'Every other browser is signed out; this one stays.',
      })}
<h1>Password and sessions</h1>
<h2 id="sessions">Where you are signed in</h2>
<p>Each browser that signed in to your account, newest first. Sign out one you do not know, then change your password.</p>
<ul class="plain list sessions">${sessions.map(
        (s) => html`<li><strong>${s.device}</strong>${s.current ? html` <span class="badge ok">This browser</span>` : ''}<br><span class="muted small">Signed in ${date(s.created_at)} · until ${date(s.expires_at)}</span>${
          s.current
            ? ''
            : // Its own line under the dates, not glued to the last one.
              html`<form method="post" action="/me/security/sessions/${s.id}/end" class="actions">${csrfField(ctx)}<button type="submit" class="small secondary">Sign out<span class="sr-only"> ${s.device}, signed in ${date(s.created_at)}</span></button></form>`
        }</li>`,
      )}</ul>
${
  others > 0
    ? html`<form method="post" action="/me/security/sessions/end-others" class="stack">${csrfField(ctx)}<div><button type="submit" class="secondary">Sign out every other browser (${others})</button></div></form>`
    : ''
}
<h2>Change your password</h2>
<p>Every other place you are signed in is signed out; this one stays.</p>
<form method="post" action="/me/security/password" class="stack" novalidate>${csrfField(ctx)}
${field({ name: 'current_password', label: 'Current password', type: 'password', error: errors.current_password, required: true, autocomplete: 'current-password', rules: rulesOf(PasswordBody, 'current_password') })}
${field({ name: 'new_password', label: 'New password', type: 'password', error: errors.new_password, required: true, autocomplete: 'new-password', rules: rulesOf(PasswordBody, 'new_password') })}
${revokeKeysBox('pw')}
<div><button type="submit">Change password</button></div></form>
<h2>Sign out everywhere</h2>
<p>Ends every session of your account, on every device, this one included. API keys keep working unless you tick the box.</p>
<form method="post" action="/me/security/logout-everywhere" class="stack">${csrfField(ctx)}${revokeKeysBox('all')}<div><button type="submit" class="danger">Sign out everywhere</button></div></form>
<h2>Your data</h2>
<p>One JSON file with everything Credence holds about your account: profile, email, memberships, submissions with their notes and decisions, claims, keys and webhooks (never their secrets), and your sign-in history.</p>
<p><a class="button" href="/me/export" download>Download my data</a></p>
<h2 id="delete">Delete your account</h2>
<p>This cannot be undone. Your email, name, username, summary and topics are erased, with your sessions, API keys and webhooks; pending submissions are withdrawn and requests you took go back to the market. Work that was accepted stays in the pages' history, naming “a former contributor”. Your username is never given to anyone else. If you are the only owner of a publication, make someone else an owner first.</p>
<form method="post" action="/me/security/delete" class="stack">${csrfField(ctx)}
${field({ name: 'confirm_username', label: 'Type your username to confirm', error: errors.confirm_username, required: true, autocomplete: 'off', hint: `Your username is ${ctx.user?.username ?? ''}` })}
${field({ name: 'password', label: 'Your password', type: 'password', error: errors.password, required: true, autocomplete: 'current-password' })}
<div><button type="submit" class="danger">Delete my account for good</button></div></form>`,
      status,
    );
  };

  // Unticked by default: a CMS's key should not stop because its owner changed a password.
  const revokeKeysBox = (id: string) =>
    html`<div><label class="check"><input type="checkbox" name="revoke_api_keys" value="true" aria-describedby="${id}-keys-hint"> Also revoke every API key of my account</label>
<p class="hint" id="${id}-keys-hint">For an account someone else may have used: their keys stop at once. Integrations using your keys stop too; make new keys for them.</p></div>`;

  app.get('/me/security', page, async (req, reply) => securityPage(req, reply));

  app.post('/me/security/password', page, async (req, reply) => {
    const { form, user } = formUser(req);
    const checked = validPassword({ current_password: str(form.current_password), new_password: str(form.new_password) });
    if (!checked.ok) return securityPage(req, reply, formErrors(checked.error.details), 400);
    const revokeKeys = str(form.revoke_api_keys) === 'true';
    try {
      await accounts.changePassword(deps, user.accountId, user.sessionId, { ...checked.value, revoke_api_keys: revokeKeys });
    } catch (err) {
      if (err instanceof DomainError && statusOf(err) === 400) return securityPage(req, reply, formErrors(err.details), 400);
      throw err;
    }
    return reply.redirect(`/me/security?done=${revokeKeys ? 'changed-keys' : 'changed'}`, 303);
  });

  app.post('/me/security/sessions/:id/end', withId, async (req, reply) => {
    const { user } = formUser(req);
    await accounts.endOwnSession(deps, user.accountId, req.params.id);
    return reply.redirect('/me/security?done=signed-out#sessions', 303);
  });

  app.post('/me/security/sessions/end-others', page, async (req, reply) => {
    const { user } = formUser(req);
    await accounts.endOtherSessions(deps, user.accountId, user.sessionId);
    return reply.redirect('/me/security?done=others-signed-out#sessions', 303);
  });

  app.post('/me/security/logout-everywhere', page, async (req, reply) => {
    const { form, user } = formUser(req);
    await accounts.logoutEverywhere(deps, user.accountId, { revokeApiKeys: str(form.revoke_api_keys) === 'true' });
    endWebSession(req, reply);
    return reply.redirect('/?done=logged-out', 303);
  });

  // ---- Leaving ----

  app.get('/me/export', page, async (req, reply) => {
    const user = requireUser(req);
    const data = await exportAccount(deps, user.accountId);
    return reply
      .header('content-type', 'application/json; charset=utf-8')
      .header('content-disposition', `attachment; filename="credence-${data.account.username}.json"`)
      .send(JSON.stringify(data, null, 2));
  });

  app.post('/me/security/delete', page, async (req, reply) => {
    const { form, user } = formUser(req);
    const password = str(form.password);
    // As GitHub asks: the account's name typed out, so a deletion is never a slip of the wrong tab.
    if (str(form.confirm_username) !== user.username) {
      return securityPage(req, reply, { confirm_username: `Type your username, ${user.username}, exactly`, ...(password ? {} : { password: 'Enter your password to confirm' }) }, 400);
    }
    if (!password) return securityPage(req, reply, { password: 'Enter your password to confirm' }, 400);
    try {
      await eraseOwnAccount(deps, user.accountId, password, req.ip);
    } catch (err) {
      if (err instanceof DomainError && (statusOf(err) === 400 || statusOf(err) === 409 || statusOf(err) === 429)) {
        return securityPage(req, reply, { password: humane(err.message) }, statusOf(err));
      }
      throw err;
    }
    endWebSession(req, reply);
    return reply.redirect('/?done=erased', 303);
  });

  // ---- API keys ----

  const keysPage = async (
    req: FastifyRequest,
    reply: FastifyReply,
    user: WebUser,
    opts: { values?: Record<string, string>; errors?: FieldErrors; created?: { name: string; secret: string }; status?: number } = {},
  ) => {
    const keys = await apiKeys.listApiKeys(deps, user.accountId);
    const now = deps.clock.now();
    const v = opts.values ?? { name: '', expires: '', publisher: '' };
    const errors = opts.errors ?? {};
    return frame(
      req,
      reply,
      'API keys',
      (ctx) => html`${notice(req, { revoked: 'The key is revoked. Calls with it now fail.' })}
<h1>API keys</h1>
<p class="lede">A contributor key takes requests, submits and withdraws your work through the <a href="/docs">API</a>. Keys are shown once, when you create them.</p>
${
  opts.created
    ? html`<section class="card created" aria-labelledby="new-key-h"><h2 id="new-key-h">Your new key “${opts.created.name}”</h2>
<p><strong>Copy it now: it will not be shown again.</strong> Anyone with it can act as you.</p>
<div class="copy-row"><label class="sr-only" for="new-key">The new key</label><input id="new-key" class="secret" readonly value="${opts.created.secret}">
<button type="button" class="secondary" data-copy="new-key" hidden>Copy</button></div>
<p class="hint" id="copy-status" role="status"></p></section>
<script src="/assets/me.js" defer></script>`
    : ''
}
<h2>Create a key</h2>
<form method="post" action="/me/keys" class="stack" novalidate>${csrfField(ctx)}
${field({ name: 'name', label: 'Name', value: v.name, error: errors.name, rules: rulesOf(ApiKeyBody, 'name'), autocomplete: 'off', hint: 'Where you will use it, e.g. “my scripts”' })}
<div><label for="f-expires">Expires</label><select id="f-expires" name="expires">${[
        ['', 'Never'],
        ['30', 'In 30 days'],
        ['90', 'In 90 days'],
        ['365', 'In a year'],
      ].map(([value, label]) => html`<option value="${value}"${v.expires === value ? html` selected` : ''}>${label}</option>`)}</select>
${errors.expires ? html`<p class="field-error">${errors.expires}</p>` : ''}</div>
${
  user.publishers.length > 0
    ? html`<div><label for="f-publisher">Acts for</label><select id="f-publisher" name="publisher"${errors.publisher ? html` aria-invalid="true" aria-describedby="f-publisher-error"` : ''}>
<option value="">Me, as a contributor</option>${user.publishers.map((p) => html`<option value="${p.slug}"${v.publisher === p.slug ? html` selected` : ''}>${p.name} (publisher key)</option>`)}</select>
${errors.publisher ? html`<p class="field-error" id="f-publisher-error">${errors.publisher}</p>` : ''}</div>`
    : ''
}
<div><button type="submit">Create key</button></div></form>
<h2>Your keys</h2>
${
  keys.length === 0
    ? empty('No keys yet.')
    : html`<div class="table-wrap"><table><thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Acts for</th><th scope="col">Last used</th><th scope="col">Expires</th><th scope="col">Status</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead><tbody>
${keys.map((k) => {
  const status = apiKeys.keyStatus(k, now);
  return html`<tr><td>${k.name}</td><td><code>${k.prefix}…${k.last4}</code></td><td>${k.publisher_name ?? 'Me (contributor)'}</td><td>${date(k.last_used_at)}</td><td>${k.expires_at ? date(k.expires_at) : 'never'}</td>
<td><span class="badge ${status === 'active' ? 'ok' : status === 'revoked' ? 'bad' : 'warn'}">${status}</span></td>
<td>${status === 'active' ? confirmAction({ action: `/me/keys/${k.id}/revoke`, csrf: csrfField(ctx), label: html`Revoke<span class="sr-only"> ${k.name}</span>`, consequence: `Calls with “${k.name}” fail at once. A revoked key cannot be brought back.`, confirm: `Revoke “${k.name}” for good` }) : ''}</td></tr>`;
})}</tbody></table></div>`
}`,
      opts.status ?? 200,
    );
  };

  app.get('/me/keys', page, async (req, reply) => {
    const user = requireUser(req);
    const flash = takeFlash(req, reply, user.token);
    return keysPage(req, reply, user, flash ? { created: { name: flash.name, secret: flash.secret } } : {});
  });

  app.post('/me/keys', page, async (req, reply) => {
    const { form, user } = formUser(req);
    const values = { name: str(form.name), expires: str(form.expires), publisher: str(form.publisher) };
    const body: Record<string, unknown> = { name: values.name, publisher: values.publisher || null };
    if (values.expires) body.expires_in_days = /^[0-9]{1,4}$/.test(values.expires) ? Number(values.expires) : values.expires;
    const checked = validKey(body);
    const rename = { expires_in_days: 'expires' };
    if (!checked.ok) return keysPage(req, reply, user, { values, errors: formErrors(checked.error.details, rename), status: 400 });
    try {
      const { key, secret } = await apiKeys.createApiKey(deps, user.accountId, checked.value);
      // The secret goes to the page this redirects to, sealed for this session (flash.ts): never a URL or a log.
      setFlash(req, reply, user.token, { path: '/me/keys', name: key.name, secret });
      return reply.redirect('/me/keys#new-key-h', 303);
    } catch (err) {
      // A publication the account is not a member of: 404 from the service, said next to the field.
      if (err instanceof DomainError && statusOf(err) === 404) return keysPage(req, reply, user, { values, errors: { publisher: 'You are not a member of this publication' }, status: 400 });
      // The cap on active keys (API_KEYS_PER_ACCOUNT): said next to the name, with what to do.
      if (err instanceof DomainError && statusOf(err) === 409) return keysPage(req, reply, user, { values, errors: { name: err.message }, status: 409 });
      throw err;
    }
  });

  app.post('/me/keys/:id/revoke', withId, async (req, reply) => {
    const { user } = formUser(req);
    await apiKeys.revokeApiKey(deps, user.accountId, req.params.id);
    return reply.redirect('/me/keys?done=revoked', 303);
  });
}
