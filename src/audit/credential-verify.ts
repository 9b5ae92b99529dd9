// `credence credential:verify FILE`: anyone's check of a Credence credential (docs/credentials.md) over HTTP from
// what its issuer publishes (domain/credentials/verify.ts makes the checks). Beyond the inclusion proof it carries,
// today's published checkpoint must extend the proof's one, checked from tiles as `log:verify --checkpoint` does.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CredentialCheckError, checkCredential } from '../domain/credentials/verify.js';
import { VerifyFailure, verifyLog } from './log-verify.js';

export { ChecksFailed, CredentialCheckError } from '../domain/credentials/verify.js';

export interface CredentialVerifyOptions {
  file: string;
  /** Where the service answers, when it is not where the credential's addresses say (a mirror, a test). */
  url?: string | undefined;
  /** The log key and policy to trust; unset, the service's published ones. */
  key?: string | undefined;
  policyFile?: string | undefined;
  out?: (line: string) => void;
  fetch?: typeof fetch;
}

/** Checks the credential in `file`; resolves when it is verified, or throws ChecksFailed or CredentialCheckError. */
export async function verifyCredentialFile(opts: CredentialVerifyOptions): Promise<void> {
  const doFetch = opts.fetch ?? fetch;
  let text: string;
  try {
    text = await fs.readFile(opts.file, 'utf8');
  } catch (err) {
    throw new CredentialCheckError(`cannot read ${opts.file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
  }
  const base = opts.url?.replace(/\/+$/, '');
  // The credential's addresses are under its issuer's SITE_URL; --url reads them from where the service answers.
  const at = (url: string) => (base ? `${base}${new URL(url).pathname}${new URL(url).search}` : url);
  await checkCredential({
    text,
    what: opts.file,
    key: opts.key,
    policyText: opts.policyFile ? await fs.readFile(opts.policyFile, 'utf8') : undefined,
    out: opts.out ?? ((l: string) => console.log(l)),
    get: async (url, accept) => {
      const res = await doFetch(at(url), { headers: { accept } });
      const body = await res.text();
      if (!res.ok) throw new CredentialCheckError(`GET ${at(url)} answered ${res.status}`);
      return body;
    },
    extendsPublished: async (note, key, siteBase) => {
      const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'credence-credential-'));
      try {
        const saved = path.join(dir, 'checkpoint');
        await fs.writeFile(saved, note);
        const today = await verifyLog({ url: base ?? siteBase, checkpointFile: saved, key, policyFile: opts.policyFile, fetch: doFetch, out: () => {} });
        return `the service's published checkpoint (${today.checkpoint.size} entries) extends it`;
      } catch (err) {
        if (err instanceof VerifyFailure) throw new CredentialCheckError(err.message);
        throw err;
      } finally {
        await fs.rm(dir, { recursive: true, force: true });
      }
    },
  });
}

