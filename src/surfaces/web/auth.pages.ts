// Sign up, log in, log out (SPEC §5, §16) for people: the API's services, a session cookie, CSRF on every form.
import type { FastifyInstance } from 'fastify';
import * as accounts from '../../domain/accounts/account.service.js';
import type { Deps } from '../../domain/deps.js';
import { localeOf } from '../../domain/mail/mail.kinds.js';
import { DomainError, statusOf } from '../../http/errors.js';
import { itemValidator } from '../../http/validation.js';
import { untilClientGoes } from '../../http/client-gone.js';
import { LoginBody, SIGNUP_MESSAGE, SignupBody } from '../integration-v1/auth.routes.js';
import { html } from './html.js';
import { csrfField } from './layout.js';
import { type FieldErrors, field, fieldErrorsOf, pageContext, readForm, Redirect, type Rules, rulesOf, safeNext, sendPage, str } from './kit.js';
import { listMemberships } from '../../domain/publishers/publisher.store.js';
import { endWebSession, startWebSession } from './session.js';

const validSignup = itemValidator<{ email: string; password: string; name: string; username: string }>(SignupBody);
const validLogin = itemValidator<{ email: string; password: string }>(LoginBody);
/** Logging in needs no rules said: the browser still checks them from the attributes, but "At most 254 characters" under an address one already has is noise. */
const quiet = (rules: Rules): Rules => ({ ...rules, hint: '' });

export function authPages(app: FastifyInstance, deps: Deps) {
  const signupPage = (req: Parameters<typeof pageContext>[1], reply: Parameters<typeof pageContext>[2], values: Record<string, string> = {}, errors: FieldErrors = {}, status = 200) => {
    const ctx = pageContext(deps, req, reply);
    return sendPage(
      deps,
      req,
      reply,
      {
        title: 'Sign up',
        body: html`<h1>Create your account</h1>
<p class="lede">Contributors take requests and submit evidence; publishers register pages and decide. One account can do both.</p>
<form method="post" action="/signup" class="stack">${csrfField(ctx)}
${field({ name: 'name', label: 'Name', value: values.name, error: errors.name, rules: rulesOf(SignupBody, 'name'), autocomplete: 'name', hint: 'Shown on your public profile' })}
${field({ name: 'username', label: 'Username', value: values.username, error: errors.username, rules: rulesOf(SignupBody, 'username'), autocomplete: 'username' })}
${field({ name: 'email', label: 'Email', type: 'email', value: values.email, error: errors.email, rules: rulesOf(SignupBody, 'email'), autocomplete: 'email', hint: 'Never shown to anyone' })}
${field({ name: 'password', label: 'Password', type: 'password', error: errors.password, rules: rulesOf(SignupBody, 'password'), autocomplete: 'new-password' })}
<div><button type="submit">Sign up</button></div></form>
<p>Already have an account? <a href="/login">Sign in</a>.</p>`,
      },
      status,
    );
  };

  app.get('/signup', { config: { html: true } }, async (req, reply) => signupPage(req, reply));

  app.post('/signup', { config: { html: true, body: 'small' } }, async (req, reply) => {
    const form = readForm(deps, req);
    // Checked as typed, and shown again as typed: a username the rule refuses is for the person to change, not for
    // the page to change silently.
    const values = { name: str(form.name), username: str(form.username), email: str(form.email), password: str(form.password) };
    const checked = validSignup(values);
    if (!checked.ok) return signupPage(req, reply, values, fieldErrorsOf(checked.error.details), 400);
    try {
      await accounts.signup(deps, { ...checked.value, locale: localeOf(req.headers['accept-language']) });
    } catch (err) {
      // Only a taken username comes back: a taken email is answered like a new one (emails are private).
      if (err instanceof DomainError && statusOf(err) === 409) return signupPage(req, reply, values, { username: err.message }, 409);
      throw err;
    }
    // Post/Redirect/Get, to the same place whether or not the email was registered: the log-in form, saying a
    // confirmation link is on its way. A reload of it signs nobody up twice. The address stays out of the URL.
    return reply.redirect(`/login?done=signed-up&next=${encodeURIComponent('/me?done=welcome')}`, 303);
  });

  const loginPage = (
    req: Parameters<typeof pageContext>[1],
    reply: Parameters<typeof pageContext>[2],
    email = '',
    error = '',
    status = 200,
    opts: { notice?: string; next?: string } = {},
  ) => {
    const ctx = pageContext(deps, req, reply);
    const next = opts.next ?? safeNext((req.query as Record<string, unknown>).next, '');
    return sendPage(
      deps,
      req,
      reply,
      {
        title: 'Sign in',
        body: html`<h1>Sign in</h1>
${opts.notice ? html`<p class="notice" role="status">${opts.notice}</p>` : ''}
${error ? html`<p class="notice error" role="alert">${error}</p>` : ''}
<form method="post" action="/login${next ? `?next=${encodeURIComponent(next)}` : ''}" class="stack">${csrfField(ctx)}
${field({ name: 'email', label: 'Email', type: 'email', value: email, required: true, autocomplete: 'email', rules: quiet(rulesOf(LoginBody, 'email')) })}
${field({ name: 'password', label: 'Password', type: 'password', required: true, autocomplete: 'current-password', rules: quiet(rulesOf(LoginBody, 'password')) })}
<div><button type="submit">Sign in</button></div></form>
<p><a href="/forgot-password">Forgot your password?</a></p>
<p>New here? <a href="/signup">Create an account</a>.</p>`,
      },
      status,
    );
  };

  app.get('/login', { config: { html: true } }, async (req, reply) =>
    req.webUser
      ? reply.redirect(req.webUser.publishers.length > 0 ? '/dashboard' : '/me', 303)
      : loginPage(req, reply, '', '', 200, (req.query as Record<string, unknown>).done === 'signed-up' ? { notice: SIGNUP_MESSAGE } : {}),
  );

  app.post('/login', { config: { html: true, body: 'small' } }, async (req, reply) => {
    const form = readForm(deps, req);
    const values = { email: str(form.email), password: str(form.password) };
    const checked = validLogin(values);
    if (!checked.ok) return loginPage(req, reply, values.email, 'Enter your email and password.', 400);
    let session: Awaited<ReturnType<typeof accounts.login>>;
    try {
      session = await accounts.login(deps, checked.value, req.ip, req.headers['user-agent'], untilClientGoes(req, reply));
      startWebSession(req, reply, session.token);
    } catch (err) {
      if (err instanceof DomainError && (statusOf(err) === 401 || statusOf(err) === 429)) {
        if (err.retryAfterSeconds !== undefined) void reply.header('retry-after', String(err.retryAfterSeconds));
        return loginPage(req, reply, values.email, err.message, statusOf(err));
      }
      throw err;
    }
    // A publisher lands on their dashboard, a contributor on their work, unless the form came from a page.
    const home = (await listMemberships(deps.db, session.user_id)).length > 0 ? '/dashboard' : '/me';
    return reply.redirect(safeNext((req.query as Record<string, unknown>).next, home), 303);
  });

  app.post('/logout', { config: { html: true } }, async (req, reply) => {
    readForm(deps, req);
    if (req.webUser) await accounts.logout(deps, req.webUser.accountId, req.webUser.sessionId);
    endWebSession(req, reply);
    throw new Redirect('/?done=logged-out');
  });
}
