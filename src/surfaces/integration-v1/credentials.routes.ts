// A person's verifiable credential of their own accepted contribution (docs/credentials.md): a session or a
// contributor key; anyone else's contribution, or one no longer on the record, is 404.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import type { Deps } from '../../domain/deps.js';
import { HOLDER_KINDS, credentialOf } from '../../domain/credentials/credential.service.js';
import { accountOf, contributorCaller } from '../../http/auth.js';
import { IdParam } from '../../http/schemas.js';

export function credentialRoutes(fastify: FastifyInstance, deps: Deps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/account/contributions/:id/credential',
    {
      preValidation: [contributorCaller],
      schema: {
        tags: ['credentials'],
        summary: 'The Open Badges 3.0 credential of one’s own accepted contribution (VC 2.0, eddsa-rdfc-2022), or as a VC-JWT',
        description:
          'Signed by the service’s did:web (its key at /.well-known/did.json); its status lists revoke it when the work is withdrawn, erased or removed after a report, and suspend it while the page stands retracted. `holder=profile` names the holder by their profile URL, `email_hash` by a salted hash of their e-mail only. `format=jwt` (or `Accept: application/vc+jwt`) gives a VC-JWT.',
        params: IdParam,
        querystring: Type.Object(
          {
            holder: Type.Optional(Type.Union(HOLDER_KINDS.map((h) => Type.Literal(h)), { default: 'profile' })),
            format: Type.Optional(Type.Union([Type.Literal('ldp'), Type.Literal('jwt')])),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.String({ description: 'the credential: application/vc (JSON), or application/vc+jwt', 'x-credence-media': 'application/vc' }) },
        errors: ['404'],
      },
    },
    async (req, reply) => {
      const jwt = req.query.format === 'jwt' || (req.query.format === undefined && (req.headers.accept ?? '').includes('application/vc+jwt'));
      const c = await credentialOf(deps, accountOf(req), req.params.id, req.query.holder ?? 'profile', jwt ? 'jwt' : 'ldp');
      void reply.header('cache-control', 'private, no-store').header('content-disposition', `attachment; filename="credence-contribution-${req.params.id}.${jwt ? 'jwt' : 'json'}"`);
      return reply.type(jwt ? 'application/vc+jwt' : 'application/vc').send(typeof c === 'string' ? c : JSON.stringify(c));
    },
  );
}
