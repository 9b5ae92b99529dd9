// A person's verifiable credential of their own accepted contribution (docs/credentials.md): a session or a
// contributor key; anyone else's contribution, or one no longer on the record, is 404.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import type { Deps } from '../../domain/deps.js';
import { HOLDER_KINDS, credentialOf } from '../../domain/credentials/credential.service.js';
import { accountOf, contributorCaller } from '../../http/auth.js';
import { IdParam, Ok } from '../../http/schemas.js';

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
          'Signed by the service’s did:web (its key at /.well-known/did.json); its status lists revoke it when the work is withdrawn, erased or removed after a report, and suspend it while the page stands retracted. `holder=profile` names the holder by their profile URL, `email_hash` by a salted hash of their e-mail only. `format=jwt` (or `Accept: application/vc+jwt`) gives a VC-JWT. The credential is `data.credential`; /me offers it as a file.',
        params: IdParam,
        querystring: Type.Object(
          {
            holder: Type.Optional(Type.Union(HOLDER_KINDS.map((h) => Type.Literal(h)), { default: 'profile' })),
            format: Type.Optional(Type.Union([Type.Literal('ldp'), Type.Literal('jwt')])),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Ok(
            Type.Object({
              format: Type.Union([Type.Literal('ldp'), Type.Literal('jwt')]),
              credential: Type.Union([
                Type.Object({}, { additionalProperties: true, description: 'the OpenBadgeCredential with its Data Integrity proof, as a wallet takes it (application/vc)' }),
                Type.String({ description: 'the VC-JWT (application/vc+jwt)' }),
              ]),
            }),
          ),
        },
        errors: ['404'],
      },
    },
    async (req, reply) => {
      const jwt = req.query.format === 'jwt' || (req.query.format === undefined && (req.headers.accept ?? '').includes('application/vc+jwt'));
      const credential = await credentialOf(deps, accountOf(req), req.params.id, req.query.holder ?? 'profile', jwt ? 'jwt' : 'ldp');
      // Every /api/v1 answer is the envelope (SPEC §6); the credential as a file of its own is /me's download.
      void reply.header('cache-control', 'private, no-store');
      return { success: true as const, data: { format: jwt ? ('jwt' as const) : ('ldp' as const), credential } };
    },
  );
}
