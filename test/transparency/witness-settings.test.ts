// The witness settings are checked at start: each LOG_WITNESSES item is `name vkey url` with an Ed25519
// cosigner key (type 0x04), the quorum fits the list, WITNESS_LOGS holds note verifier keys; a mistake names the
// setting.
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { cosignerVerifierKey } from '../../src/domain/transparency/cosignature.js';
import { rawPublicKey, verifierKeyOf } from '../../src/domain/transparency/note.js';

const key = () => rawPublicKey(generateKeyPairSync('ed25519').privateKey);
const w1 = cosignerVerifierKey('w1.example/w', key());
const w2 = cosignerVerifierKey('w2.example/w', key());

describe('witness settings', () => {
  it('reads witnesses and the quorum, defaulting to any with witnesses and none without', () => {
    const c = loadConfig({ LOG_WITNESSES: `one ${w1} https://w1.example/w/, two ${w2} https://w2.example/w` });
    expect(c.logWitnesses).toEqual([
      { name: 'one', vkey: w1, url: 'https://w1.example/w' },
      { name: 'two', vkey: w2, url: 'https://w2.example/w' },
    ]);
    expect(c.logWitnessQuorum).toBe('any');
    expect(loadConfig({}).logWitnessQuorum).toBe('none');
    expect(loadConfig({ LOG_WITNESSES: `one ${w1} https://w1.example/w`, LOG_WITNESS_QUORUM: '1' }).logWitnessQuorum).toBe('1');
  });

  it('refuses a malformed witness, a note key where a cosigner key belongs, a quorum past the list', () => {
    expect(() => loadConfig({ LOG_WITNESSES: `one ${w1}` })).toThrow(/LOG_WITNESSES: each witness is `name vkey url`/);
    expect(() => loadConfig({ LOG_WITNESSES: `one ${verifierKeyOf('log.example/log', key())} https://x.example` })).toThrow(/LOG_WITNESSES: not an Ed25519 cosignature/);
    expect(() => loadConfig({ LOG_WITNESSES: `one ${w1} ftp://x.example` })).toThrow(/LOG_WITNESSES: the URL is http or https/);
    expect(() => loadConfig({ LOG_WITNESSES: `one ${w1} https://a.example, one ${w2} https://b.example` })).toThrow(/listed twice/);
    expect(() => loadConfig({ LOG_WITNESSES: `one ${w1} https://a.example`, LOG_WITNESS_QUORUM: '2' })).toThrow(/LOG_WITNESS_QUORUM/);
    expect(() => loadConfig({ LOG_WITNESS_QUORUM: 'any' })).toThrow(/LOG_WITNESS_QUORUM needs LOG_WITNESSES/);
    expect(() => loadConfig({ WITNESS_LOGS: w1 })).toThrow(/WITNESS_LOGS/);
    expect(loadConfig({ WITNESS_LOGS: verifierKeyOf('log.example/log', key()) }).witnessLogs).toHaveLength(1);
    expect(() => loadConfig({ WITNESS_SIGNING_KEY: 'nope' })).toThrow(/WITNESS_SIGNING_KEY/);
  });
});
