// A check of a Credence credential (docs/credentials.md) from what its issuer publishes, for `credence
// credential:verify` (audit/credential-verify.ts, over HTTP) and the /verify page (answered from this service's own
// record): the issuer's DID document (did:web), the status lists, and the transparency log. Each check
// says in words what it found; a check that could not be made (a list that did not answer) is a failure too, since
// "not verified" must mean something went wrong and "verified" must mean everything was looked at.
//
// - The proof: a Data Integrity proof (eddsa-rdfc-2022, with the pinned contexts only) or a VC-JWT (EdDSA), by the
//   key the DID document names.
// - The status: each BitstringStatusListEntry's list, itself signed by the issuer, and the credential's bit in it.
// - The log: the tlog-proof in the evidence must put the entry in a checkpoint signed by the log's key with the
//   policy's quorum, and today's log must still hold that checkpoint (the caller's `extendsPublished`).
import * as vc from '@digitalbazaar/vc';
import { DataIntegrityProof } from '@digitalbazaar/data-integrity';
import { cryptosuite } from '@digitalbazaar/eddsa-rdfc-2022-cryptosuite';
import * as Ed25519Multikey from '@digitalbazaar/ed25519-multikey';
import { checkStatus } from '@digitalbazaar/vc-bitstring-status-list';
import { decodeProtectedHeader, importJWK, jwtVerify } from 'jose';
import { documentLoader } from './contexts.js';
import type { DidDocument } from './issuer.js';
import { parseProofBundle } from '../transparency/proof-bundle.js';
import { leafHash, verifyInclusion } from '../transparency/merkle.js';
import { openNote, parseCheckpoint } from '../transparency/note.js';
import { parsePolicy, quorumMet, vouchers } from '../transparency/cosignature.js';

/** The credential could not be checked (unreadable, not a credential, its issuer's key out of reach). */
export class CredentialCheckError extends Error {}
/** One or more checks were made and failed: the credential is not verified. */
export class ChecksFailed extends CredentialCheckError {}

export interface CheckOptions {
  /** The credential: its JSON, or a VC-JWT. `what` names it in messages (a file's name). */
  text: string;
  what: string;
  /** Reads one of the issuer's published addresses (as the credential names it); throws CredentialCheckError. */
  get: (url: string, accept: string) => Promise<string>;
  /** The log key and policy to trust; unset, the issuer's published ones. */
  key?: string | undefined;
  policyText?: string | undefined;
  /** Today's log holds the proof's checkpoint: answers a line saying how it knows, or throws. */
  extendsPublished?: (checkpointNote: string, key: string, siteBase: string) => Promise<string>;
  out: (line: string) => void;
}

type Json = Record<string, unknown>;

/** The https base a did:web names (W3C did:web: the host with %3A for a port, then path segments). */
export function baseOfDidWeb(did: string): string {
  const parts = did.split(':');
  if (parts[0] !== 'did' || parts[1] !== 'web' || !parts[2]) throw new CredentialCheckError(`the issuer ${did} is not a did:web`);
  return `https://${decodeURIComponent(parts[2])}${parts.slice(3).map((p) => `/${decodeURIComponent(p)}`).join('')}`;
}

/** Checks a credential; resolves when every check holds, or throws ChecksFailed (or CredentialCheckError). */
export async function checkCredential(opts: CheckOptions): Promise<void> {
  const { out, get } = opts;
  const failed: string[] = [];
  const fail = (line: string) => {
    failed.push(line);
    out(`FAILED: ${line}`);
  };
  const text = opts.text.trim();
  const isJwt = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(text);
  let credential: Json;
  try {
    credential = isJwt ? (JSON.parse(Buffer.from(text.split('.')[1]!, 'base64url').toString('utf8')) as Json) : (JSON.parse(text) as Json);
  } catch {
    throw new CredentialCheckError(`${opts.what} is neither a credential (JSON) nor a VC-JWT`);
  }
  if (!credential || typeof credential !== 'object' || !Array.isArray(credential.type) || !credential.type.includes('VerifiableCredential')) {
    throw new CredentialCheckError(`${opts.what} is not a verifiable credential (its type does not say VerifiableCredential)`);
  }
  const issuerDid = typeof credential.issuer === 'string' ? credential.issuer : String((credential.issuer as Json | undefined)?.id ?? '');
  const siteBase = baseOfDidWeb(issuerDid);
  const name = typeof credential.name === 'string' ? credential.name : 'a credential';
  out(`credential: ${name} (${isJwt ? 'VC-JWT' : 'Data Integrity'}), issued by ${issuerDid}`);

  // The issuer's key.
  const didPath = new URL(siteBase).pathname.replace(/\/+$/, '');
  const didDocument = JSON.parse(await get(`${siteBase.replace(/\/+$/, '')}${didPath ? '' : '/.well-known'}/did.json`, 'application/did+json')) as DidDocument;
  if (didDocument.id !== issuerDid) throw new CredentialCheckError(`the DID document at ${siteBase} is for ${didDocument.id}, not the issuer ${issuerDid}`);
  const documents = new Map<string, unknown>([[didDocument.id, didDocument]]);
  const suite = new DataIntegrityProof({ cryptosuite });

  // The proof.
  if (isJwt) {
    const { kid } = decodeProtectedHeader(text);
    const method = didDocument.verificationMethod.find((m) => m.id === kid) && didDocument.assertionMethod.includes(String(kid)) ? didDocument.verificationMethod.find((m) => m.id === kid)! : null;
    if (!method) fail(`the JWT's key ${String(kid)} is not an assertion key of ${issuerDid}`);
    else {
      const jwk = await Ed25519Multikey.toJwk({ keyPair: await Ed25519Multikey.from(method) });
      try {
        await jwtVerify(text, await importJWK({ ...jwk, alg: 'EdDSA' }, 'EdDSA'), { issuer: issuerDid, algorithms: ['EdDSA'] });
        out(`signature: good, by ${kid} (EdDSA)`);
      } catch (err) {
        fail(`the JWT's signature does not verify with ${kid}: ${(err as Error).message}`);
      }
    }
  } else {
    const result = await vc.verifyCredential({ credential, suite, documentLoader: documentLoader(documents), checkStatus: async () => ({ verified: true }) });
    const proof = credential.proof as Json | undefined;
    if (result.verified) out(`proof: good (${String(proof?.cryptosuite)}), by ${String(proof?.verificationMethod)}`);
    else fail(`the proof does not verify: ${errorWords(result)}`);
  }

  // The status.
  const entries = ([] as Json[]).concat((credential.credentialStatus as Json | Json[] | undefined) ?? []);
  if (entries.length === 0) out('status: the credential carries none');
  for (const entry of entries) {
    const purpose = String(entry.statusPurpose);
    const listUrl = String(entry.statusListCredential);
    let list: unknown;
    try {
      list = JSON.parse(await get(listUrl, 'application/vc'));
    } catch (err) {
      fail(`${purpose}: its status list ${listUrl} could not be read (${(err as Error).message})`);
      continue;
    }
    const one = { ...credential, credentialStatus: entry };
    const r = await checkStatus({ credential: one, documentLoader: documentLoader(new Map([...documents, [listUrl, list]])), suite, verifyStatusListCredential: true, verifyMatchingIssuers: true });
    const set = r.results?.[0]?.status;
    if (!r.verified || set === undefined) fail(`${purpose}: its status list ${listUrl} does not verify: ${errorWords(r)}`);
    else if (set) fail(`${purpose}: the bit is set in ${listUrl}: the credential is ${purpose === 'revocation' ? 'REVOKED' : purpose === 'suspension' ? 'SUSPENDED' : `marked (${purpose})`}`);
    else out(`${purpose}: not set (index ${String(entry.statusListIndex)} of ${listUrl}, a list signed by the issuer)`);
  }

  // The log.
  const evidence = ([] as Json[]).concat((credential.evidence as Json | Json[] | undefined) ?? []);
  const tlog = evidence.find((e) => typeof e.narrative === 'string' && e.narrative.startsWith('c2sp.org/tlog-proof@v1\n'));
  if (!tlog) {
    const linked = evidence.find((e) => /Transparency log entry/.test(String(e.name)));
    if (linked) fail(`log: the credential links ${String(linked.id)} but carries no inclusion proof (it was issued before the entry was in a checkpoint: download it again)`);
    else fail('log: the credential names no transparency-log entry');
  } else {
    try {
      const bundle = parseProofBundle(tlog.narrative as string);
      const key = opts.key?.trim() ?? (await get(`${siteBase}/v1/log/key`, 'text/plain')).trim();
      const policyText = opts.policyText ?? (await get(`${siteBase}/v1/log/policy`, 'text/plain'));
      const policy = parsePolicy(policyText);
      let checkpoint;
      try {
        checkpoint = parseCheckpoint(openNote(bundle.checkpoint, key));
      } catch (err) {
        throw new CredentialCheckError(`the proof's checkpoint is not signed by the log's key ${key}: ${(err as Error).message}`);
      }
      const vouched = vouchers(policy, bundle.checkpoint).map((v) => v.name);
      if (!quorumMet(policy, new Set(vouched))) throw new CredentialCheckError(`the proof's checkpoint is short of the policy's quorum (${policy.quorum})`);
      if (!verifyInclusion(bundle.index, checkpoint.size, leafHash(bundle.entry), bundle.proof, checkpoint.root)) {
        throw new CredentialCheckError(`entry ${bundle.index} and its inclusion proof do not lead to the signed root`);
      }
      out(`log: entry ${bundle.index} is in ${checkpoint.origin}'s checkpoint of ${checkpoint.size} entries, cosigned by ${vouched.join(', ') || 'no witness'} (quorum ${policy.quorum})`);
      if (opts.extendsPublished) out(`log: ${await opts.extendsPublished(bundle.checkpoint, key, siteBase)}`);
    } catch (err) {
      fail(`log: ${(err as Error).message}`);
    }
  }

  if (failed.length > 0) throw new ChecksFailed(`${failed.length} check${failed.length === 1 ? '' : 's'} failed`);
  out('verified: the proof, the status and the log inclusion all hold');
}

function errorWords(result: { error?: { errors?: { message?: string }[]; message?: string } }): string {
  return result.error?.errors?.map((e) => e.message).join('; ') ?? result.error?.message ?? 'no reason given';
}
