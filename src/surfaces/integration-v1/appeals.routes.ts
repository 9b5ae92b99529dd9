// Appealing a decision on a report (DSA Art. 20) through the API: the person whose text it was, or a notifier with
// an account, within six months; a session or the person's own contributor key (a publisher key acts for its
// publication only). Another operator decides it on /admin/reports. docs/trust-and-safety.md.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import type { Deps } from '../../domain/deps.js';
import * as moderation from '../../domain/moderation/moderation.service.js';
import { accountOf, contributorCaller } from '../../http/auth.js';
import { IdParam, Ok } from '../../http/schemas.js';

const AppealBody = Type.Object(
  { explanation: Type.String({ minLength: 10, maxLength: 5000, description: 'Why the decision should change' }) },
  { additionalProperties: false },
);

const AppealData = Type.Object({
  id: Type.Integer(),
  decision_id: Type.Integer(),
  created_at: Type.String({ format: 'date-time' }),
});

export function appealRoutes(fastify: FastifyInstance, deps: Deps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/decisions/:id/appeal',
    {
      preValidation: [contributorCaller],
      schema: {
        tags: ['reports'],
        summary: 'Appeal a decision on a report: the person whose text it was, or a notifier, within six months',
        description:
          'Another operator than the first decides the appeal; its outcome is a new decision with its own statement of reasons. ' +
          'A decision the caller is neither affected by nor reported is 404; one appeal may wait at a time (409 `conflict`); ' +
          'after six months, 403 `forbidden`. A suspended account may still appeal.',
        params: IdParam,
        body: AppealBody,
        response: { 201: Ok(AppealData) },
      },
    },
    async (req, reply) => {
      const a = await moderation.appeal(deps, accountOf(req), req.params.id, req.body.explanation);
      return reply.code(201).send({ success: true as const, data: { id: a.id, decision_id: req.params.id, created_at: a.created_at } });
    },
  );
}
