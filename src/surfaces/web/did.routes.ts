// The issuer's DID document: did:web of SITE_URL resolves here (W3C did:web), naming the Ed25519 key that signs
// verifiable credentials (docs/credentials.md). Public, and the same for everyone until the key is changed.
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { issuerOf } from '../../domain/credentials/issuer.js';

export function didRoutes(app: FastifyInstance, deps: Deps) {
  app.get('/.well-known/did.json', { config: { hidden: true, unlimited: true } }, async (_req, reply) => {
    const issuer = await issuerOf(deps.config);
    return reply.type('application/did+json').header('cache-control', 'public, max-age=300').send(JSON.stringify(issuer.didDocument));
  });
}
