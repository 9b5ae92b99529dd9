// /verify: anyone drops a Credence credential (docs/credentials.md) and is told in words what was found. The file is
// posted and checked here, by the same checks as `credence credential:verify` (domain/credentials/verify.ts), with
// the issuer's addresses answered from this service's own record rather than fetched: the server reaches no
// address a visitor names, and a credential of another issuer is said to be one (the CLI checks those).
// Checking changes nothing, so the post answers the page itself (no Post/Redirect/Get).
import fs from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../domain/deps.js';
import { ChecksFailed, CredentialCheckError, checkCredential } from '../../domain/credentials/verify.js';
import { STATUS_PURPOSES, type StatusPurpose, statusListCredential } from '../../domain/credentials/credential.service.js';
import { issuerOf } from '../../domain/credentials/issuer.js';
import * as log from '../../domain/transparency/log.service.js';
import { policyText } from '../../domain/transparency/witnesses.js';
import { openNote, parseCheckpoint } from '../../domain/transparency/note.js';
import { html, type SafeHtml } from './html.js';
import { csrfField, layout } from './layout.js';
import { pageContext, readForm, str } from './kit.js';

const SCRIPT = fs.readFileSync(new URL('../../../public/credential-verify.js', import.meta.url), 'utf8');
/** A credential with its inclusion proof is a few KB; this is far above any, and far below the form's body limit. */
const MAX_CHARS = 100_000;

interface Outcome {
  kind: 'verified' | 'failed' | 'unchecked';
  lines: string[];
  reason?: string;
}

export function verifyPages(app: FastifyInstance, deps: Deps) {
  app.get('/assets/credential-verify.js', { config: { hidden: true, unlimited: true } }, async (_req, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=3600').send(SCRIPT),
  );

  const render = (req: FastifyRequest, reply: FastifyReply, opts: { text?: string; error?: string; outcome?: Outcome }, status = 200) => {
    const ctx = pageContext(deps, req, reply);
    return reply
      .status(status)
      .header('cache-control', 'private, no-store')
      .type('text/html; charset=utf-8')
      .send(
        layout(ctx, {
        title: 'Check a credential',
        description: 'Check a Credence credential: its signature, whether it is revoked or suspended, and its entry in the public log.',
        body: html`<h1>Check a credential</h1>
<p class="lede">A credential from Credence says that a person’s work was accepted. Drop its file here, or paste its contents, to check its signature, whether it still stands, and its entry in the public log.</p>
${opts.outcome ? outcomeSection(opts.outcome) : ''}
<form class="credential-verify card" method="post" action="/verify">
${csrfField(ctx)}
<p class="file-pick" hidden><label for="credential-file">The credential’s file</label><br><input type="file" id="credential-file" accept=".json,.jwt,application/json,application/vc,application/vc+jwt"> <span class="file-status muted" role="status" aria-live="polite"></span></p>
<p><label for="credential">The credential (JSON, or a VC-JWT)</label><br>
<textarea id="credential" name="credential" rows="10" spellcheck="false" autocomplete="off"${opts.error ? html` aria-invalid="true" aria-describedby="credential-error"` : ''}>${opts.text ?? ''}</textarea>
${opts.error ? html`<span class="field-error" id="credential-error">${opts.error}</span>` : ''}</p>
<p><button type="submit">Check it</button></p>
</form>
<p class="muted">The same checks from a terminal: <code>npx credence credential:verify FILE</code>.</p>
<script src="/assets/credential-verify.js" defer></script>`,
        }),
      );
  };

  app.get('/verify', { config: { html: true } }, async (req, reply) => render(req, reply, {}));

  app.post('/verify', { config: { html: true } }, async (req, reply) => {
    const text = str(readForm(deps, req).credential);
    if (!text) return render(req, reply, { error: 'Choose the credential’s file, or paste its contents.' }, 400);
    if (text.length > MAX_CHARS) return render(req, reply, { error: `That is longer than any credential (${MAX_CHARS.toLocaleString('en')} characters at most).` }, 400);
    return render(req, reply, { text, outcome: await check(deps, text) });
  });
}

async function check(deps: Deps, text: string): Promise<Outcome> {
  const own = new URL(deps.config.siteUrl).origin;
  const lines: string[] = [];
  try {
    await checkCredential({
      text,
      what: 'This file',
      out: (l) => lines.push(l),
      get: async (url) => {
        const u = new URL(url);
        if (u.origin !== own) throw new CredentialCheckError(`it was issued for ${u.origin}, not this service (${own}); check it with npx credence credential:verify`);
        if (u.pathname === '/.well-known/did.json') return JSON.stringify((await issuerOf(deps.config)).didDocument);
        if (u.pathname === '/v1/log/key') return (await log.verifierKeys(deps)).current;
        if (u.pathname === '/v1/log/policy') return policyText(deps);
        const m = /^\/v1\/credentials\/status\/([a-z]+)\/(0|[1-9][0-9]{0,8})$/.exec(u.pathname);
        if (m && (STATUS_PURPOSES as readonly string[]).includes(m[1]!)) {
          try {
            return JSON.stringify(await statusListCredential(deps, m[1] as StatusPurpose, Number(m[2])));
          } catch {
            throw new CredentialCheckError(`this service has no status list ${u.pathname}`);
          }
        }
        throw new CredentialCheckError(`${url} is not an address of this service’s credentials`);
      },
      extendsPublished: async (note, key) => {
        const signed = parseCheckpoint(openNote(note, key));
        const today = await log.currentCheckpoint(deps);
        if (signed.size > today.size || !(await log.rootAt(deps, signed.size)).equals(signed.root)) {
          throw new CredentialCheckError(`the log today (${today.size} entries) does not hold the tree of the proof’s checkpoint`);
        }
        return `the log today (${today.size} entries) still holds the proof’s checkpoint`;
      },
    });
    return { kind: 'verified', lines };
  } catch (err) {
    if (err instanceof ChecksFailed) return { kind: 'failed', lines, reason: err.message };
    if (err instanceof CredentialCheckError) return { kind: 'unchecked', lines, reason: err.message };
    throw err;
  }
}

function outcomeSection(o: Outcome): SafeHtml {
  const heading =
    o.kind === 'verified'
      ? 'Verified: the signature, the status and the log entry all hold.'
      : o.kind === 'failed'
        ? `NOT verified: ${o.reason ?? ''}.`
        : `This file could not be checked: ${o.reason ?? ''}.`;
  return html`<section class="card" aria-labelledby="outcome-h" role="status"><h2 id="outcome-h" class="${o.kind === 'verified' ? 'ok' : 'bad'}">${heading}</h2>
${o.lines.length > 0 ? html`<ul class="plain list">${o.lines.map((l) => html`<li${l.startsWith('FAILED: ') ? html` class="bad"` : ''}>${l}</li>`)}</ul>` : ''}</section>`;
}
