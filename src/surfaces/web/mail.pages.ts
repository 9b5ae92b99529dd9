// The pages a mail links to: confirm an address, forgot/reset a password, unsubscribe from a kind of
// notice. Each link opens a page that asks before acting (a mail scanner following links must not spend a
// single-use link or turn a notice off); the one-click unsubscribe POST of RFC 8058 is the exception, by design.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import * as accounts from '../../domain/accounts/account.service.js';
import type { Deps } from '../../domain/deps.js';
import * as mail from '../../domain/mail/mail.service.js';
import { DomainError, statusOf } from '../../http/errors.js';
import { itemValidator } from '../../http/validation.js';
import { RESET_MESSAGE, ResetCompleteBody, ResetRequestBody } from '../integration-v1/auth.routes.js';
import { html } from './html.js';
import { csrfField } from './layout.js';
import { field, pageContext, readForm, rulesOf, sendPage, str } from './kit.js';

const validReset = itemValidator<{ email: string }>(ResetRequestBody);
const validComplete = itemValidator<{ token: string; password: string; revoke_api_keys?: boolean }>(ResetCompleteBody);

/** What each notice kind is called on the pages. */
export const NOTICE_LABELS: Record<string, string> = {
  named_on_page: 'A publication named me as an author',
  author_link: 'A publication asks to name me as the author of a user of its site',
  submission_decided: 'My submission was decided',
  take_cancelled: 'A request I took was cancelled',
  request_taken: 'A specialist took a request of my publication',
  domain_moved: 'Another publication verified a domain of my publication',
  member_invitation: 'I am invited to a publication',
  webhook_disabled: 'A webhook of my publication was disabled',
  api_key_expiring: 'An API key of mine expires in 7 days',
};

const tokenOf = (req: FastifyRequest): string => {
  const t = (req.query as Record<string, unknown>).token;
  return typeof t === 'string' && /^[A-Za-z0-9_-]{10,200}$/.test(t) ? t : '';
};

export function mailPages(app: FastifyInstance, deps: Deps) {
  const message = (req: FastifyRequest, reply: FastifyReply, title: string, text: string, status = 200) =>
    sendPage(deps, req, reply, { title, body: html`<h1>${title}</h1><p class="notice" role="status">${text}</p>` }, status);

  // Confirming an address.
  // The page names an address: never stored by a cache, whoever asks.
  app.get('/confirm-email', { config: { html: true } }, async (req, reply) => {
    const ctx = pageContext(deps, req, reply);
    const token = tokenOf(req);
    // The page says which address and account the link confirms; a used or expired link says so before any click.
    const target = token ? await accounts.confirmationTarget(deps, token) : null;
    return sendPage(deps, req, reply, {
      title: 'Confirm your email address',
      body: target
        ? html`<h1>Confirm your email address</h1>
<p>Confirm <strong>${target.email}</strong> for the Credence account <strong>${target.username}</strong>.</p>
<form method="post" action="/confirm-email" class="stack">${csrfField(ctx)}<input type="hidden" name="token" value="${token}">
<div><button type="submit">Confirm ${target.email}</button></div></form>`
        : html`<h1>Confirm your email address</h1>
<p class="notice error" role="alert">This confirmation link is used, expired or incomplete. <a href="/me/mail">Send a new link</a> from your account, after you sign in.</p>`,
      noindex: true,
      noStore: true,
    });
  });

  app.get('/email-confirmed', { config: { html: true } }, async (req, reply) =>
    sendPage(deps, req, reply, {
      title: 'Address confirmed',
      body: html`<h1>Address confirmed</h1><p class="notice" role="status">${(req.query as Record<string, unknown>).changed === '1' ? 'Your account uses its new address now.' : 'Thank you: your address is confirmed.'}</p>
<p>Next: ${req.webUser ? html`<a href="/me">your work</a>, <a href="/requests">open requests</a> or <a href="/dashboard">your publications</a>` : html`<a href="/login?next=%2Fme">sign in</a>, or see <a href="/requests">open requests</a>`}.</p>`,
      noindex: true,
    }),
  );

  app.post('/confirm-email', { config: { html: true, body: 'small' } }, async (req, reply) => {
    const form = readForm(deps, req);
    try {
      const r = await accounts.confirmEmail(deps, str(form.token));
      // Post/Redirect/Get: a reload shows the answer again, never a spent link's refusal.
      return reply.redirect(`/email-confirmed${r.changed ? '?changed=1' : ''}`, 303);
    } catch (err) {
      if (err instanceof DomainError && statusOf(err) === 404) return message(req, reply, 'This link does not work', 'It was used already, ran out, or is not whole. Sign in and ask for a new one on your account page.', 404);
      throw err;
    }
  });

  // Forgot the password.
  const forgotPage = (req: FastifyRequest, reply: FastifyReply, error = '', status = 200) => {
    const ctx = pageContext(deps, req, reply);
    return sendPage(
      deps,
      req,
      reply,
      {
        title: 'Forgot your password?',
        body: html`<h1>Forgot your password?</h1>
<p class="lede">We mail a link to choose a new one. It works once, for one hour.</p>
<form method="post" action="/forgot-password" class="stack" novalidate>${csrfField(ctx)}
${field({ name: 'email', label: 'Email', type: 'email', required: true, autocomplete: 'email', rules: rulesOf(ResetRequestBody, 'email'), error: error || undefined })}
<div><button type="submit">Send me a link</button></div></form>`,
      },
      status,
    );
  };

  app.get('/forgot-password', { config: { html: true } }, async (req, reply) => forgotPage(req, reply));

  app.post('/forgot-password', { config: { html: true, body: 'small' } }, async (req, reply) => {
    const form = readForm(deps, req);
    const checked = validReset({ email: str(form.email) });
    if (!checked.ok) return forgotPage(req, reply, 'Enter an email address.', 400);
    try {
      await accounts.requestPasswordReset(deps, checked.value, req.ip);
    } catch (err) {
      if (err instanceof DomainError && statusOf(err) === 429) return forgotPage(req, reply, err.message, 429);
      throw err;
    }
    return message(req, reply, 'Check your inbox', RESET_MESSAGE, 202);
  });

  const resetPage = (req: FastifyRequest, reply: FastifyReply, token: string, error = '', status = 200) => {
    const ctx = pageContext(deps, req, reply);
    return sendPage(
      deps,
      req,
      reply,
      {
        title: 'Choose a new password',
        body: html`<h1>Choose a new password</h1>
<p class="lede">Every session of the account ends: sign in again with the new password.</p>
<form method="post" action="/reset-password" class="stack" novalidate>${csrfField(ctx)}<input type="hidden" name="token" value="${token}">
${field({ name: 'password', label: 'New password', type: 'password', required: true, autocomplete: 'new-password', rules: rulesOf(ResetCompleteBody, 'password'), error: error || undefined })}
<div><label class="check"><input type="checkbox" name="revoke_api_keys" value="true" checked aria-describedby="reset-keys-hint"> Also revoke every API key of my account</label>
<p class="hint" id="reset-keys-hint">Keep this on if someone else may have used your account: keys they made would outlive the new password. Turn it off to keep your integrations working.</p></div>
<div><button type="submit">Set the password</button></div></form>`,
      },
      status,
    );
  };

  const deadLink = (req: FastifyRequest, reply: FastifyReply) =>
    sendPage(deps, req, reply, { title: 'This link does not work', body: html`<h1>This link does not work</h1><p>It was used already, ran out, or is not whole. <a href="/forgot-password">Ask for a new one</a>.</p>` }, 404);

  app.get('/reset-password', { config: { html: true } }, async (req, reply) => {
    const token = tokenOf(req);
    if (!token || !(await accounts.resetLinkIsLive(deps, token))) return deadLink(req, reply);
    return resetPage(req, reply, token);
  });

  app.post('/reset-password', { config: { html: true, body: 'small' } }, async (req, reply) => {
    const form = readForm(deps, req);
    // A checkbox left unticked sends nothing: only a ticked one revokes the keys.
    const values = { token: str(form.token), password: str(form.password), revoke_api_keys: str(form.revoke_api_keys) === 'true' };
    const checked = validComplete(values);
    if (!checked.ok) return resetPage(req, reply, values.token, 'At least 10 characters.', 400);
    try {
      await accounts.completePasswordReset(deps, checked.value);
    } catch (err) {
      if (err instanceof DomainError && statusOf(err) === 404) return deadLink(req, reply);
      throw err;
    }
    return message(req, reply, 'Password changed', values.revoke_api_keys ? 'Your new password is set, every session has ended and every API key of the account is revoked. Sign in with it.' : 'Your new password is set and every session has ended. Sign in with it.');
  });

  // Unsubscribing: the page asks; the RFC 8058 one-click POST (and the page's own button) turns the kind off.
  app.get('/unsubscribe', { config: { html: true } }, async (req, reply) => {
    const token = tokenOf(req);
    const target = token ? await mail.unsubscribeTarget(deps, token) : null;
    if (!target) return message(req, reply, 'This link does not work', 'It is not whole, or ran out.', 404);
    return sendPage(deps, req, reply, {
      title: 'Stop these mails',
      body: html`<h1>Stop these mails</h1>
<p>Stop mail about: <strong>${NOTICE_LABELS[target.kind] ?? target.kind}</strong>. Other kinds stay as they are; you can turn it on again on your account page.</p>
<form method="post" action="/unsubscribe?token=${token}"><div><button type="submit">Stop these mails</button></div></form>`,
    });
  });

  // No CSRF check: mail clients post with no cookie, and the token in the address is the whole authority (it can
  // only turn one kind of this person's notices off).
  app.post('/unsubscribe', { config: { html: true, body: 'small', csrfExempt: true } }, async (req, reply) => {
    const token = tokenOf(req);
    try {
      const r = await mail.unsubscribe(deps, token);
      return message(req, reply, 'Unsubscribed', `You will get no more mail about: ${NOTICE_LABELS[r.kind] ?? r.kind}.`);
    } catch (err) {
      if (err instanceof DomainError && statusOf(err) === 404) return message(req, reply, 'This link does not work', 'It is not whole, or ran out.', 404);
      throw err;
    }
  });
}
