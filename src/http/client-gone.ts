// Work that waits its turn (a log-in's password hash) must not outlive its caller: a client that has gone cannot
// read the answer, and a flood of abandoned requests would otherwise still cost every hash it queued.
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Aborted when the request's client goes away before its answer is written (at once if it has gone already). */
export function untilClientGoes(req: FastifyRequest, reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  const res = reply.raw;
  if (req.raw.socket?.destroyed) controller.abort();
  else {
    // A response's `close` also follows a finished answer; only one that closed unfinished means the client left.
    res.once('close', () => {
      if (!res.writableFinished) controller.abort();
    });
  }
  return controller.signal;
}
