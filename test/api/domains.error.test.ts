// Domain verification tells nothing about the private network: a name that resolves to a private
// address and a name that does not resolve get the same finding, so a publisher cannot map internal names.
import type { LookupAddress } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemVerifier } from '../../src/domain/publishers/domain-verifier.js';
import type { Resolve } from '../../src/net/safe-fetch.js';
import { signup } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
  // As in production: private addresses refused; DNS played by the test.
  const answers = new Map<string, LookupAddress[]>([
    ['intranet.corp.example', [{ address: '10.1.2.3', family: 4 }]],
    ['metadata.corp.example', [{ address: '169.254.169.254', family: 4 }]],
    ['mapped.corp.example', [{ address: '::ffff:10.0.0.1', family: 6 }]],
  ]);
  const resolve: Resolve = (host, _o, cb) =>
    setImmediate(() => {
      const a = answers.get(host);
      if (a) cb(null, a);
      else cb(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }), []);
    });
  t.runtime.deps.verifier = systemVerifier({ allowPrivate: false, resolver: t.dns, resolve });
});
afterAll(async () => t?.close());

describe('domain verification findings', () => {
  it('are the same for a private address and a missing name', async () => {
    const owner = await signup(t);
    await owner.client.post('/api/v1/account/publishers', { name: 'Probe', slug: 'probe-pub' });
    const messages: string[] = [];
    for (const domain of ['intranet.corp.example', 'metadata.corp.example', 'mapped.corp.example', 'nothing-here.corp.example']) {
      expect((await owner.client.post('/api/v1/account/publishers/probe-pub/domains', { domain })).status).toBe(201);
      const res = await owner.client.post(`/api/v1/account/publishers/probe-pub/domains/${domain}/verify`);
      expect(res.status).toBe(400);
      const file = res.body.error.details.find((d: { field: string }) => d.field === 'file').message as string;
      messages.push(file);
      expect(res.text).not.toMatch(/ENOTFOUND|getaddrinfo|10\.1\.2\.3|169\.254|private/i);
    }
    expect(new Set(messages).size).toBe(1);
    expect(messages[0]).toBe('the host has no public address');
  });
});
