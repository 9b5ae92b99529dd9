import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { representationOf } from './precompressed.js';

/** The bytes a representation puts on the wire (written as latin1: one byte a character). */
const bytes = (wire: string) => Buffer.from(wire, 'latin1');

describe('a cached answer’s representations', () => {
  it('holds each coding’s bytes one character a byte, past ASCII and compressed alike', () => {
    const body = `{"title":"Zoë „Fakten“ ✓ 事実 😀","pad":"${'x'.repeat(2000)}"}`;
    const answer = { body, etag: '"abc"' };
    const identity = representationOf(answer, null);
    expect(bytes(identity.wire).equals(Buffer.from(body, 'utf8'))).toBe(true);
    expect(identity.wire.length).toBe(Buffer.byteLength(body));
    expect(identity.etag).toBe('"abc"');
    expect(zlib.brotliDecompressSync(bytes(representationOf(answer, 'br').wire)).toString('utf8')).toBe(body);
    expect(zlib.gunzipSync(bytes(representationOf(answer, 'gzip').wire)).toString('utf8')).toBe(body);
    expect(representationOf(answer, 'gzip').etag).toBe('"abc-gzip"');
    // Made once: the same object on every later ask.
    expect(representationOf(answer, 'br')).toBe(representationOf(answer, 'br'));
  });

  it('keeps an ASCII body as it is', () => {
    const answer = { body: '{"success":true,"html":""}', etag: '"t"' };
    expect(representationOf(answer, null).wire).toBe(answer.body);
  });
});
