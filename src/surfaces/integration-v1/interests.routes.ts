// A contributor's declared interests: list, declare, end. A session or the person's contributor key, like
// their answers to claims (a publisher key acts for its publication only). Public on the profile; docs/decisions/declared-interests.md.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import type { Deps } from '../../domain/deps.js';
import * as interests from '../../domain/interests/interest.service.js';
import { accountOf, contributorCaller } from '../../http/auth.js';
import { IdParam, Ok } from '../../http/schemas.js';
import { InterestData, InterestKind, InterestSubject, presentInterest } from '../interests.presenter.js';
import { NON_BLANK_PATTERN } from '../../domain/text.js';

const InterestBody = Type.Object(
  {
    subject: InterestSubject,
    name: Type.String({ minLength: 1, maxLength: 200, pattern: NON_BLANK_PATTERN, description: 'The organisation’s name, the publication’s slug, or the topic' }),
    kind: InterestKind,
    note: Type.Optional(Type.String({ maxLength: interests.INTEREST_NOTE_MAX, description: 'Anything readers should know (a role, a period, an amount)' })),
  },
  { additionalProperties: false },
);

export function interestRoutes(fastify: FastifyInstance, deps: Deps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['account'];

  app.get(
    '/account/interests',
    { preValidation: [contributorCaller], schema: { tags, summary: 'The caller’s declared interests that hold now, oldest first', response: { 200: Ok(Type.Array(InterestData)) } } },
    async (req) => ({ success: true as const, data: (await interests.listOwnInterests(deps, accountOf(req))).map(presentInterest) }),
  );

  app.post(
    '/account/interests',
    {
      preValidation: [contributorCaller],
      schema: {
        tags,
        summary: 'Declare an interest: an organisation, a publication or a topic; employment, funding, ownership or personal',
        description:
          'Public on the profile and on the proofs of related work, and shown to publishers deciding on the caller’s work. An interest in a ' +
          'publication keeps the caller from taking its requests and submitting work on its pages (403 `forbidden`) until it is ended.',
        body: InterestBody,
        response: { 201: Ok(InterestData) },
      },
    },
    async (req, reply) => reply.code(201).send({ success: true as const, data: presentInterest(await interests.declareInterest(deps, accountOf(req), req.body)) }),
  );

  app.delete(
    '/account/interests/:id',
    {
      preValidation: [contributorCaller],
      schema: {
        tags,
        summary: 'End a declared interest (it stays on the proofs of work accepted while it held)',
        params: IdParam,
        response: { 200: Ok(Type.Object({ id: Type.Integer(), ended: Type.Literal(true) })) },
      },
    },
    async (req) => {
      await interests.endInterest(deps, accountOf(req), req.params.id);
      return { success: true as const, data: { id: req.params.id, ended: true as const } };
    },
  );
}
