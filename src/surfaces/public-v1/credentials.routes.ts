// Verifiable credentials' public reads (docs/credentials.md): the status lists every credential points to. Each is
// computed from the record and cached like any public read, under the `credentials` tag the change follower and the
// cache tier's purger drop on every withdrawal, erasure, notice and decision.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import type { Deps } from '../../domain/deps.js';
import { STATUS_PURPOSES, statusListCredential } from '../../domain/credentials/credential.service.js';
import { tag } from '../../domain/pages/cache-tags.js';
import { optional } from '../../http/auth.js';
import { surrogateHeaders } from '../../http/cache-tier.js';

export function credentialRoutes(fastify: FastifyInstance, deps: Deps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/credentials/status/:purpose/:list',
    {
      preValidation: [optional],
      schema: {
        tags: ['credentials'],
        summary: 'A status list of the verifiable credentials (a signed BitstringStatusListCredential, VC 2.0): bit set = revoked or suspended',
        params: Type.Object({
          purpose: Type.Union(STATUS_PURPOSES.map((p) => Type.Literal(p))),
          // Digits only: an integer would be coerced from a blank into list 0.
          list: Type.String({ pattern: '^(0|[1-9][0-9]{0,8})$', description: 'the list number, from 0' }),
        }),
        response: { 200: Type.String({ description: 'the status list credential (application/vc)', 'x-credence-media': 'application/vc' }) },
        errors: ['404'],
      },
    },
    async (req, reply) => {
      const credential = await statusListCredential(deps, req.params.purpose, Number(req.params.list));
      void reply.headers(surrogateHeaders(deps, req, [tag.credentials]));
      return reply.type('application/vc').send(JSON.stringify(credential));
    },
  );
}
