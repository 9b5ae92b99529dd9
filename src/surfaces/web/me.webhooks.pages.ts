// A contributor's own webhooks, on /me/names: adding one (its signing secret shown once after the redirect) and
// deleting one.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import * as webhooks from '../../domain/webhooks/webhook.service.js';
import { DomainError, statusOf } from '../../http/errors.js';
import { str } from './kit.js';
import { setFlash } from './flash.js';
import type { NamesPage } from './me.names.pages.js';
import { formUser as formUserOf, humane, page, withId } from './me.kit.js';

export function meWebhookPages(fastify: FastifyInstance, deps: Deps, namesPage: NamesPage) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const formUser = (req: FastifyRequest) => formUserOf(deps, req);


  app.post('/me/webhooks', page, async (req, reply) => {
    const { form, user } = formUser(req);
    const url = str(form.url);
    if (url === '') return namesPage(req, reply, { url, error: humane('is required') }, 400);
    try {
      const { secret } = await webhooks.registerWebhook(deps, user.accountId, { url, format: 'contributor' });
      // The secret goes into this page only: never a URL, a cookie or a log.
      setFlash(req, reply, user.token, { path: '/me/names', name: url, secret });
      return reply.redirect('/me/names#new-hook-h', 303);
    } catch (err) {
      if (err instanceof DomainError && statusOf(err) < 500) return namesPage(req, reply, { url, error: humane(err.details?.[0]?.message ?? err.message) }, statusOf(err));
      throw err;
    }
  });

  app.post('/me/webhooks/:id/delete', withId, async (req, reply) => {
    const { user } = formUser(req);
    await webhooks.deleteWebhook(deps, user.accountId, req.params.id);
    return reply.redirect('/me/names?done=hook-deleted#webhooks', 303);
  });
}
