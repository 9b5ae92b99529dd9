// autocannon as every benchmark here drives it, less one cost that belongs to the instrument, not to the server.
//
// autocannon 8 turns every answer's body into a string as it arrives (`req.body += chunk`), for its verifyBody and
// expectBody options and the per-request onResponse callback, none of which these benchmarks use. For a text body
// that is cheap (0.3 µs for a 1 KB lookup answer), but a compressed body is binary, and decoding binary as UTF-8
// takes V8's slow path: about 10 µs per brotli embed, measured on the bench's own answers (2026-11-23). That was a
// third of the client's CPU per embed, on the same two cores the server runs on, so the embed scenario measured the
// load generator more than the service (docs/performance.md, "How the read benchmark works": the embed's ratio
// was the load generator's). A reader's browser never pays it: it decompresses. The bytes are still counted
// (throughput): autocannon counts them apart.
import { createRequire } from 'node:module';
import autocannon from 'autocannon';

const require = createRequire(import.meta.url);
const queue = require('autocannon/lib/pipelinedRequestsQueue.js') as { prototype: { addBody?: unknown } };
if (typeof queue.prototype.addBody !== 'function') {
  throw new Error('autocannon changed: its pipelinedRequestsQueue has no addBody to leave out (bench/client.ts)');
}
queue.prototype.addBody = () => {};

export default autocannon;
export type { Result } from 'autocannon';
