// Credence as a witness for other logs: the C2SP tlog-witness API under the submission prefix
// `<SITE_URL>/v1/witness`, for the logs listed in WITNESS_LOGS, and what this witness holds of each. The
// add-checkpoint answers are the spec's (status codes, plain-text bodies), not the /v1 JSON envelope.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import type { Deps } from '../../domain/deps.js';
import { addCheckpoint, witnessedLogs } from '../../domain/transparency/witness.service.js';
import { optional } from '../../http/auth.js';
import { defaultWitnessName } from '../../domain/transparency/signing-key.js';

/** A checkpoint with 63 proof lines and a few signatures fits well under this. */
const BODY_LIMIT = 16 * 1024;
const Text = (description: string) => Type.String({ description, 'x-credence-media': 'text/plain' });

export function witnessRoutes(deps: Deps) {
  return async function plugin(fastify: FastifyInstance) {
    // The spec names no content type: any body is read as text here (and only here, in this plugin's scope).
    fastify.removeContentTypeParser('application/json');
    fastify.addContentTypeParser('*', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (_req, body, done) => done(null, body));
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    const tags = ['witness'];

    app.post(
      '/witness/add-checkpoint',
      {
        preValidation: [optional],
        bodyLimit: BODY_LIMIT,
        // No body, or not text: the handler answers the spec's plain-text 400, not the JSON envelope.
        attachValidation: true,
        schema: {
          tags,
          summary:
            'C2SP tlog-witness add-checkpoint: `old <size>`, consistency proof lines, a blank line, then a checkpoint of a log this service witnesses; answers its Ed25519 cosignature/v1 line',
          // C2SP tlog-witness's own text formats, not JSON: the request, and the tree size a 409 answers with.
          body: Type.String({ description: 'C2SP tlog-witness add-checkpoint text: `old <size>`, one base64 consistency proof hash per line, a blank line, then the signed checkpoint (C2SP tlog-checkpoint and signed-note)', 'x-credence-media': 'text/plain' }),
          response: {
            200: Text('one cosignature line'),
            400: Text('malformed request'),
            403: Text('not signed by the log’s key'),
            404: Text('a log this witness does not witness'),
            409: Type.String({ description: 'C2SP tlog-witness: the tree size this witness holds for the log, one decimal line', 'x-credence-media': 'text/x.tlog.size' }),
            422: Text('the checkpoint does not extend the one this witness holds'),
          },
        },
      },
      async (req, reply) => {
        const a = await addCheckpoint(deps, typeof req.body === 'string' ? req.body : '');
        return reply.code(a.status).type(a.type).send(a.body);
      },
    );

    app.get(
      '/witness',
      {
        preValidation: [optional],
        schema: {
          tags,
          summary: 'This witness: its name and cosigner verifier key (to list in a log’s LOG_WITNESSES), and the logs it witnesses with the size it holds of each',
          response: {
            200: Type.Object({
              name: Type.String(),
              verifier_key: Type.Union([Type.String(), Type.Null()], {
                description: 'name+hex(key ID)+base64(0x04 || Ed25519 public key); null while this service witnesses no log (WITNESS_LOGS unset)',
              }),
              submission_prefix: Type.String(),
              logs: Type.Array(
                Type.Object({
                  origin: Type.String(),
                  verifier_key: Type.String(),
                  tree_size: Type.Integer(),
                  updated_at: Type.Union([Type.String(), Type.Null()]),
                }),
              ),
            }),
          },
        },
      },
      async () => {
        const logs = await witnessedLogs(deps);
        // The key is loaded (or made, in DATA_DIR) only by a service that witnesses: a public read never makes one.
        const w = logs.length > 0 ? deps.transparency.witness() : null;
        return {
          name: deps.config.witnessName ?? defaultWitnessName(deps.config.siteUrl),
          verifier_key: w?.verifierKey ?? null,
          submission_prefix: `${deps.config.siteUrl}/v1/witness`,
          logs: logs.map((l) => ({ origin: l.origin, verifier_key: l.verifierKey, tree_size: l.size, updated_at: l.updatedAt })),
        };
      },
    );
  };
}
