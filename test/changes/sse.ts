// A Server-Sent Events reader for the change-feed tests: real fetch, real stream, parsed events.
import { expect } from 'vitest';

/** Read Server-Sent Events from a stream until `until` holds (or the deadline passes). */
export async function readEvents(
  url: string,
  headers: Record<string, string>,
  until: (events: { id: string; event: string; data: any }[]) => boolean,
  timeoutMs = 10_000,
) {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), timeoutMs);
  const events: { id: string; event: string; data: any }[] = [];
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: ac.signal });
  try {
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let i: number;
      while ((i = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, i);
        buffer = buffer.slice(i + 2);
        const fields = Object.fromEntries(block.split('\n').filter((l) => l && !l.startsWith(':')).map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trim()]));
        if (fields.data) events.push({ id: fields.id ?? '', event: fields.event ?? '', data: JSON.parse(fields.data) });
      }
      if (until(events)) break;
    }
  } catch (err) {
    if (!ac.signal.aborted) throw err;
  } finally {
    clearTimeout(timer);
    ac.abort();
  }
  return { events, headers: res.headers };
}
