// The bare target of the benchmarks: Fastify with no app, the ceiling each scenario is compared with. Plain
// JavaScript, so that `bench:instructions` runs it under valgrind with no TypeScript loader; bench/server.ts loads
// the same routes.
//   /bare         a constant object, the baseline of every ratio;
//   /bare-record  a constant object as large as a lookup answer (1 KB): the cost of its bytes, not of app code;
//   /bare-embed   a warm embed answer's bytes, its headers included, written as the embed route writes them (one
//                 writeHead and one latin1 end, http/wire.ts): what the embed's contract alone costs the server and
//                 the load generator.
import { randomUUID } from 'node:crypto';
import { brotliCompressSync } from 'node:zlib';
import Fastify from 'fastify';

const RECORD_SIZED = {
  success: true,
  data: {
    id: 90,
    url: 'https://dailyledger.example/health/measles-cases-rise-in-three-states',
    title: 'Measles cases rise in three states as vaccination rates slip',
    topic: 'health',
    has_record: true,
    registered: true,
    status: 'verified',
    record_url: 'http://localhost:8080/records/90',
    publisher: { slug: 'the-daily-ledger', name: 'The Daily Ledger', verified: true },
    contributors: {
      author: [
        {
          username: 'amara-okafor',
          name: 'Amara Okafor',
          level: 'trusted',
          trust_score: 0.86,
          summary: 'Wrote this page',
          profile_url: 'http://localhost:8080/contributors/amara-okafor',
          proof_url: 'http://localhost:8080/proofs/92',
        },
        {
          username: 'priya-raman',
          name: 'Priya Raman',
          level: 'contributor',
          trust_score: 0.7,
          summary: 'Wrote this page',
          profile_url: 'http://localhost:8080/contributors/priya-raman',
          proof_url: 'http://localhost:8080/proofs/93',
        },
      ],
    },
  },
};

/** A brotli body of 347 bytes, near a warm embed's (444 for the demo's first page; a real coding: the bench decodes it). */
const EMBED_SIZED_BODY = brotliCompressSync(JSON.stringify(RECORD_SIZED)).toString('latin1');
/** The headers the app sends with a warm embed to a browser, the request id apart (new on every answer). */
const EMBED_SIZED_HEADERS = Object.freeze({
  'content-security-policy': "default-src 'none';frame-ancestors 'none'",
  'cross-origin-resource-policy': 'cross-origin',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'ETag',
  'cache-control': 'public, max-age=300',
  vary: 'Accept-Encoding',
  'content-type': 'application/json; charset=utf-8',
  etag: '"qo7v-1ejhtb_NR6iK_Ie5UvbxnH-br"',
  'content-encoding': 'br',
  'content-length': EMBED_SIZED_BODY.length,
});

export function bareApp() {
  const app = Fastify({ logger: false });
  const body = { success: true, data: { ok: true } };
  app.get('/bare', async () => body);
  app.get('/bare-record', async () => RECORD_SIZED);
  app.get('/bare-embed', (_req, reply) => {
    reply.hijack();
    reply.raw.writeHead(200, { 'x-request-id': randomUUID(), ...EMBED_SIZED_HEADERS });
    reply.raw.end(EMBED_SIZED_BODY, 'latin1');
  });
  return app;
}
