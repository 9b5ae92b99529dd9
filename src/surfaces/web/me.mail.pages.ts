// The e-mail address and notices at /me/mail: confirming, changing the address, and which notices are mailed.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import * as accounts from '../../domain/accounts/account.service.js';
import type { Deps } from '../../domain/deps.js';
import { DomainError, statusOf } from '../../http/errors.js';
import { itemValidator } from '../../http/validation.js';
import { EMAIL_CHANGE_MESSAGE, EmailChangeBody } from '../integration-v1/auth.routes.js';
import * as mail from '../../domain/mail/mail.service.js';
import { NOTICE_KINDS } from '../../domain/mail/mail.kinds.js';
import { NOTICE_LABELS } from './mail.pages.js';
import { html } from './html.js';
import { csrfField } from './layout.js';
import { type FieldErrors, field, notice, requireUser, rulesOf, str } from './kit.js';
import { type WebUser } from './session.js';
import { formErrors, formUser as formUserOf, meFrame, page } from './me.kit.js';

export function meMailPages(fastify: FastifyInstance, deps: Deps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const frame = meFrame(deps);
  const formUser = (req: FastifyRequest) => formUserOf(deps, req);

  // ---- Email and notices ----

  const validEmailChange = itemValidator<{ new_email: string; current_password: string }>(EmailChangeBody);

  const mailPage = async (req: FastifyRequest, reply: FastifyReply, user: WebUser, errors: FieldErrors = {}, status = 200) => {
    const [{ account }, settings] = await Promise.all([accounts.getOwnAccount(deps, user.accountId), mail.noticeSettings(deps, user.accountId)]);
    return frame(
      req,
      reply,
      'Email and notices',
      (ctx) => html`${notice(req, {
        sent: 'A new link is on its way to your address.',
        moving: EMAIL_CHANGE_MESSAGE,
        saved: 'Your notice settings are saved.',
      })}
<h1>Email and notices</h1>
<p>Your address: <strong>${account.email}</strong> (never shown to anyone). ${account.email_confirmed_at ? 'It is confirmed.' : 'It is not confirmed yet.'}</p>
${
  account.email_confirmed_at
    ? ''
    : html`<form method="post" action="/me/mail/confirmation" class="inline">${csrfField(ctx)}<button type="submit">Send a new confirmation link</button></form>`
}
<h2>Change your address</h2>
<p>We mail a link to the new address; your address changes when it is used, and the old one is told.</p>
<form method="post" action="/me/mail/address" class="stack" novalidate>${csrfField(ctx)}
${field({ name: 'new_email', label: 'New address', type: 'email', error: errors.new_email, rules: rulesOf(EmailChangeBody, 'new_email'), autocomplete: 'email' })}
${field({ name: 'current_password', label: 'Current password', type: 'password', error: errors.current_password, required: true, autocomplete: 'current-password', rules: rulesOf(EmailChangeBody, 'current_password') })}
<div><button type="submit">Change address</button></div></form>
<h2 id="notices">Notices by mail</h2>
<p>Mail about your account itself (confirming an address, resetting a password) always goes.</p>
<form method="post" action="/me/mail/notices" class="stack">${csrfField(ctx)}
<fieldset><legend>Mail me when</legend>${settings.map(
        (s) => html`<div><label class="check"><input type="checkbox" name="on" value="${s.kind}"${s.enabled ? html` checked` : ''}> ${NOTICE_LABELS[s.kind] ?? s.kind}</label></div>`,
      )}</fieldset>
<div><button type="submit">Save</button></div></form>`,
      status,
    );
  };

  app.get('/me/mail', page, async (req, reply) => mailPage(req, reply, requireUser(req)));

  app.post('/me/mail/confirmation', page, async (req, reply) => {
    const { user } = formUser(req);
    await accounts.resendConfirmation(deps, user.accountId);
    return reply.redirect('/me/mail?done=sent', 303);
  });

  app.post('/me/mail/address', page, async (req, reply) => {
    const { form, user } = formUser(req);
    const checked = validEmailChange({ new_email: str(form.new_email), current_password: str(form.current_password) });
    if (!checked.ok) return mailPage(req, reply, user, formErrors(checked.error.details), 400);
    try {
      await accounts.requestEmailChange(deps, user.accountId, checked.value);
    } catch (err) {
      if (err instanceof DomainError && statusOf(err) === 400) return mailPage(req, reply, user, formErrors(err.details), 400);
      throw err;
    }
    return reply.redirect('/me/mail?done=moving', 303);
  });

  app.post('/me/mail/notices', page, async (req, reply) => {
    const { form, user } = formUser(req);
    const on = new Set(([] as string[]).concat(form.on ?? []));
    await mail.setNoticeSettings(deps, user.accountId, Object.fromEntries(NOTICE_KINDS.map((k) => [k, on.has(k)])));
    return reply.redirect('/me/mail?done=saved', 303);
  });
}
