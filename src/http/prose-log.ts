// Log lines for a person at a terminal (LOG_FORMAT=text, the default): pino's JSON lines rewritten as one sentence
// each, `12:04:31 WARN  webhook delivery failed · webhook=3 status=500`. LOG_FORMAT=json keeps pino's lines for a
// collector. Fastify's own "Server listening at …" lines are dropped: `serve` prints the one address to open.
import { Writable } from 'node:stream';

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO ', 40: 'WARN ', 50: 'ERROR', 60: 'FATAL' };
/** What every line carries and a person does not need to read (the request id stays: it names a request in a report). */
const QUIET = new Set(['level', 'time', 'pid', 'hostname', 'msg']);

/** One JSON log line as prose; null for a line not worth a person's attention. */
export function proseLine(line: string): string | null {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const msg = typeof o.msg === 'string' ? o.msg : '';
  if (msg.startsWith('Server listening at ')) return null;
  const time = typeof o.time === 'number' ? new Date(o.time).toISOString().slice(11, 19) : '';
  const level = LEVELS[Number(o.level)] ?? String(o.level);
  // An access line reads as the request it was: `GET /records/4 404 (3 ms)`.
  if (msg === 'request' && typeof o.method === 'string') {
    return `${time} ${level} ${o.method} ${String(o.path)} ${String(o.status)} (${String(o.ms)} ms)${o.reqId ? ` · reqId=${String(o.reqId)}` : ''}`;
  }
  const err = o.err as { message?: string; stack?: string } | undefined;
  const rest = Object.entries(o)
    .filter(([k]) => !QUIET.has(k) && k !== 'err')
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
  if (err?.message) rest.push(`error=${err.message}`);
  // A stack goes under the line, indented, as Node prints one.
  const stack = err?.stack ? `\n${err.stack.split('\n').slice(1).join('\n')}` : '';
  return `${time} ${level} ${msg}${rest.length ? ` · ${rest.join(' ')}` : ''}${stack}`;
}

/** A stream pino writes JSON lines to, passing each on to `out` as prose. */
export function proseStream(out: NodeJS.WritableStream): Writable {
  let pending = '';
  return new Writable({
    write(chunk: Buffer | string, _enc, done) {
      pending += chunk.toString();
      let nl: number;
      while ((nl = pending.indexOf('\n')) >= 0) {
        const text = proseLine(pending.slice(0, nl));
        pending = pending.slice(nl + 1);
        if (text !== null) out.write(`${text}\n`);
      }
      done();
    },
  });
}
