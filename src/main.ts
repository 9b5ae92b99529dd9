#!/usr/bin/env node
// The `credence` command: the only place that reads process.env and argv.
import cluster from 'node:cluster';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { AggregatorRegistry } from 'prom-client';
import { parseArgs } from 'node:util';
import { buildApp } from './app.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { openDatabase } from './db/client.js';
import { createRuntime } from './deps.js';
import { confirmByOperator, createAdmin } from './domain/accounts/account.service.js';
import { PASSWORD_MIN } from './domain/accounts/rules.js';
import type { StatementInput } from './domain/panels/panel.schema.js';
import { validateStatementFile } from './surfaces/panel-file.js';
import { issueFromFile } from './domain/panels/panel.service.js';
import { verifyDomainByOperator } from './domain/publishers/publisher.service.js';
import { DEMO_PASSWORD } from './demo/demo-data.js';
import { seedDemo } from './demo/seed.js';
import { eraseByUsername, listErasures, parseErasureList, reapplyErasures } from './domain/privacy/erasure.service.js';
import { DomainError } from './domain/errors.js';
import { VerifyFailure, verifyLog } from './audit/log-verify.js';
import { ChecksFailed, CredentialCheckError, verifyCredentialFile } from './audit/credential-verify.js';
import { startWebhookRelay } from './jobs/relay.js';
import { startMailSender } from './jobs/mail.js';
import { startLogSequencer } from './jobs/log-sequencer.js';
import { startCachePurger } from './jobs/cache-purger.js';
import { startTakeExpiry } from './jobs/take-expiry.js';
import { startWithheldExpiry } from './jobs/withheld-expiry.js';
import { RecountFailure, recountTransparency } from './audit/transparency.js';
import { dsaExport } from './domain/moderation/dsa-export.js';
import { validateStatement } from './domain/moderation/dsa-rules.js';
import { forgetExpiredWithheld } from './domain/moderation/moderation.service.js';
import { RELAY_ENV, runPrimary } from './ops/workers.js';
import { buildExtension, ExtensionBuildError } from './ops/extension-build.js';
import { exportCatalogs, I18nError, importCatalogs } from './ops/i18n-xliff.js';
import { isLang, type Lang, LANGS } from './i18n/catalog.js';

const HELP = `Usage: credence <verb> [options]

  serve [--demo] [--workers N|auto]    run the HTTP service (--demo: load the demo data first; --workers: N
                                       processes sharing the port, auto = one per core; also WORKERS)
  backup FILE                          copy the embedded database to FILE while the service runs
  migrate                              apply pending migrations and exit
  seed --demo                          load the demo dataset (idempotent)
  admin:create --email E --password P --username U [--name N]
                                       make an admin account (or promote the account with that email)
  account:confirm EMAIL                 confirm an account's address by hand (a person whose mail cannot reach them)
  domains:verify DOMAIN --publisher SLUG
                                       verify a domain by hand for a publisher
  panels:issue FILE.json               create an expert panel statement from a JSON file, or issue its next
                                       version when its id exists (the same file again changes nothing)
  accounts:erase USERNAME              erase an account for good (a request received by other means): its
                                       personal data, sessions, keys and webhooks; its accepted work stays,
                                       naming "a former contributor"; appended to the erasure list
  erasures:apply [FILE]                erase again everyone the erasure list (ERASURE_LIST, or FILE) names who
                                       is back after a backup was restored (serve does this at every start)
  erasures:export                      print the database's erasure list (JSON lines: ids and times only)
  log:verify --url BASE [--checkpoint FILE] [--save FILE] [--key VERIFIER_KEY] [--policy FILE] [--transparency]
  log:verify --proof FILE.tlog-proof --key VERIFIER_KEY --policy FILE
  credential:verify FILE [--url BASE] [--key VERIFIER_KEY] [--policy FILE]
                                       check a Credence credential (JSON or VC-JWT): its proof, its status,
                                       and its log inclusion against the published checkpoint
                                       check a transparency log from its public API: the whole log, or
                                       consistency with a saved checkpoint; --save keeps today's checkpoint;
                                       --transparency also recounts the DSA counts from the log's decision
                                       entries and compares them with /v1/transparency
  dsa:export --since DATE [--out FILE] write each decision since DATE as a statement of reasons in the DSA
                                       Transparency Database's JSON ({"statements": [...]}), each checked by its rules
  withheld:forget                      delete text withheld by decisions whose appeal window has closed, and
                                       scrub the freed space (serve does this every hour)
  extension:build --service URL --out DIR
                                       build the browser extension asking URL: DIR/chromium and DIR/firefox
                                       unpacked, and a zip of each for the stores
  i18n:export --format xliff --out DIR [--lang L]
                                       write the message catalog as XLIFF 2.0 for translators: DIR/{lang}.xlf for
                                       de, fr and es (or L), English as the source
  i18n:import FILE.xlf...              read translated XLIFF 2.0 files back into src/i18n/catalogs (all checked
                                       first: known ids, every message parses, placeholders as in English)

Settings come from the environment; see docs/configuration.md.`;

async function extensionBuild(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { service: { type: 'string' }, out: { type: 'string' } } });
  if (!values.service || !values.out) throw new UsageError('extension:build needs --service URL and --out DIR');
  try {
    const built = await buildExtension({ service: values.service, out: values.out });
    console.log(`Chromium: ${built.chromium} (${built.chromiumZip})\nFirefox: ${built.firefox} (${built.firefoxZip})`);
    return 0;
  } catch (err) {
    if (err instanceof ExtensionBuildError) throw new UsageError(err.message);
    throw err;
  }
}

async function i18n(verb: string, args: string[]): Promise<number> {
  try {
    if (verb === 'i18n:export') {
      const { values } = parseArgs({ args, options: { format: { type: 'string' }, out: { type: 'string' }, lang: { type: 'string' } } });
      if (values.format !== 'xliff') throw new UsageError('i18n:export needs --format xliff (XLIFF 2.0)');
      if (!values.out) throw new UsageError('i18n:export needs --out DIR');
      if (values.lang !== undefined && (!isLang(values.lang) || values.lang === 'en')) throw new UsageError(`--lang must be one of ${LANGS.filter((l) => l !== 'en').join(', ')}`);
      const langs: Lang[] = values.lang ? [values.lang as Lang] : LANGS.filter((l) => l !== 'en');
      for (const file of await exportCatalogs(values.out, langs)) console.log(file);
      return 0;
    }
    const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
    if (positionals.length === 0) throw new UsageError('i18n:import needs one or more FILE.xlf');
    console.log(`catalogs written: ${(await importCatalogs(positionals)).join(', ')}`);
    return 0;
  } catch (err) {
    if (err instanceof I18nError) throw new UsageError(err.message);
    throw err;
  }
}

async function main(argv: string[]): Promise<number> {
  const [verb, ...rest] = argv;
  if (!verb || verb === 'help' || verb === '--help' || verb === '-h') {
    console.log(HELP);
    return verb ? 0 : 1;
  }
  // An auditor's check needs no settings, database or key of its own: only the log's public API.
  if (verb === 'log:verify') return logVerify(rest);
  // Nor does checking a credential: the file, and what its issuer publishes.
  if (verb === 'credential:verify') return credentialVerify(rest);
  // Nor does building the browser extension: its files and the service's address.
  if (verb === 'extension:build') return extensionBuild(rest);
  // Nor do the catalog's export and import: files in, files out.
  if (verb === 'i18n:export' || verb === 'i18n:import') return i18n(verb, rest);
  const config = loadConfig(process.env);
  switch (verb) {
    case 'serve': {
      const { values } = parseArgs({ args: rest, options: { demo: { type: 'boolean', default: false }, workers: { type: 'string' } } });
      let workers = config.workers;
      if (values.workers !== undefined) {
        if (!/^([0-9]{1,3}|auto)$/.test(values.workers) || values.workers === '0') throw new UsageError('--workers takes a number of processes, or auto');
        workers = values.workers === 'auto' ? 0 : Number(values.workers);
      }
      if (values.demo) refuseDemoInProduction();
      return serve(config, { demo: values.demo ?? false, workers });
    }
    case 'backup': {
      const { positionals } = parseArgs({ args: rest, allowPositionals: true, options: {} });
      if (positionals.length !== 1) throw new UsageError('backup needs one FILE');
      await backup(config, positionals[0]!);
      console.log(`database copied to ${positionals[0]}`);
      return 0;
    }
    case 'migrate': {
      const rt = await createRuntime(config);
      console.log(`migrations applied; database: ${rt.database.dialect}`);
      await rt.close();
      return 0;
    }
    case 'seed': {
      const { values } = parseArgs({ args: rest, options: { demo: { type: 'boolean', default: false } } });
      if (!values.demo) throw new UsageError('seed needs --demo (the only dataset so far)');
      refuseDemoInProduction();
      const rt = await createRuntime(config);
      try {
        await seedDemo(rt.deps, (line) => console.log(line));
      } finally {
        await rt.close();
      }
      return 0;
    }
    case 'admin:create': {
      const { values } = parseArgs({
        args: rest,
        options: { email: { type: 'string' }, password: { type: 'string' }, username: { type: 'string' }, name: { type: 'string' } },
      });
      if (!values.email || !values.password || !values.username) throw new UsageError('admin:create needs --email, --password and --username');
      if (values.password.length < PASSWORD_MIN) throw new UsageError(`the password needs at least ${PASSWORD_MIN} characters`);
      const rt = await createRuntime(config);
      try {
        const r = await createAdmin(rt.deps, {
          email: values.email,
          password: values.password,
          username: values.username,
          name: values.name ?? values.username,
        });
        console.log(r.created ? `admin ${values.username} created (id ${r.user_id})` : `account ${r.user_id} is now an admin`);
      } finally {
        await rt.close();
      }
      return 0;
    }
    case 'account:confirm': {
      const { positionals } = parseArgs({ args: rest, allowPositionals: true, options: {} });
      const email = positionals[0];
      if (!email) throw new UsageError('account:confirm needs EMAIL');
      const rt = await createRuntime(config);
      try {
        if (!(await confirmByOperator(rt.deps.db, email, rt.deps.clock.now().toISOString()))) throw new UsageError('no account has this address');
        console.log('address confirmed');
      } finally {
        await rt.close();
      }
      return 0;
    }
    case 'domains:verify': {
      const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { publisher: { type: 'string' } } });
      const domain = positionals[0];
      if (!domain || !values.publisher) throw new UsageError('domains:verify needs DOMAIN and --publisher SLUG');
      const rt = await createRuntime(config);
      try {
        const d = await verifyDomainByOperator(rt.deps, values.publisher, domain);
        console.log(`${d.domain} verified for ${values.publisher} at ${d.verified_at}`);
      } finally {
        await rt.close();
      }
      return 0;
    }
    case 'panels:issue': {
      const { positionals } = parseArgs({ args: rest, allowPositionals: true, options: {} });
      if (positionals.length !== 1) throw new UsageError('panels:issue needs one FILE.json');
      const file = positionals[0]!;
      // The file is checked before the database is opened: a typo costs nothing.
      const input = await readStatementFile(file);
      const rt = await createRuntime(config);
      try {
        const { action, statement: s } = await issueFromFile(rt.deps, input);
        console.log(
          action === 'created'
            ? `panel statement ${s.id} created: version 1 issued at ${s.issued_at}`
            : action === 'issued'
              ? `panel statement ${s.id}: version ${s.version} issued at ${s.issued_at}; version ${s.version - 1} is superseded`
              : `panel statement ${s.id} unchanged: version ${s.version} already says this`,
        );
      } finally {
        await rt.close();
      }
      return 0;
    }
    case 'accounts:erase': {
      const { positionals } = parseArgs({ args: rest, allowPositionals: true, options: {} });
      if (positionals.length !== 1) throw new UsageError('accounts:erase needs one USERNAME');
      const rt = await createRuntime(config);
      try {
        const r = await eraseByUsername(rt.deps, positionals[0]!);
        console.log(
          `account ${r.account_id} erased at ${r.erased_at}: ${r.kept_work} accepted works now name a former contributor; ` +
            `${r.withdrawn_submissions} pending submissions withdrawn, ${r.released_requests} requests released, ` +
            `${r.deleted_webhooks} webhooks deleted, ${r.forgotten_openings} log openings forgotten` +
            (config.erasureList ? `; recorded in ${config.erasureList}` : ''),
        );
      } finally {
        await rt.close();
      }
      return 0;
    }
    case 'erasures:apply': {
      const { positionals } = parseArgs({ args: rest, allowPositionals: true, options: {} });
      const file = positionals[0] ?? config.erasureList;
      if (positionals.length > 1 || !file) throw new UsageError('erasures:apply takes at most one FILE (default: ERASURE_LIST)');
      const records = parseErasureList(await readFile(file, 'utf8'));
      const rt = await createRuntime(config);
      try {
        const r = await reapplyErasures(rt.deps, records);
        console.log(`${records.length} erasures listed: ${r.reapplied.length} applied again (${r.reapplied.join(', ') || 'none'}), ${r.alreadyErased} already erased`);
      } finally {
        await rt.close();
      }
      return 0;
    }
    case 'erasures:export': {
      const rt = await createRuntime(config);
      try {
        for (const r of await listErasures(rt.deps)) console.log(JSON.stringify(r));
      } finally {
        await rt.close();
      }
      return 0;
    }
    case 'dsa:export': {
      const { values } = parseArgs({ args: rest, options: { since: { type: 'string' }, out: { type: 'string' } } });
      if (!values.since) throw new UsageError('dsa:export needs --since DATE (YYYY-MM-DD)');
      const rt = await createRuntime(config);
      try {
        const statements = await dsaExport(rt.deps, values.since);
        // Every statement is checked before any is written: the database refuses a batch for one bad statement.
        const bad = statements.flatMap((s) => validateStatement(s).map((e) => `${String(s.puid)}: ${e.field} (${e.rule})`));
        if (bad.length > 0) {
          console.error(`FAILED: ${bad.length} rule${bad.length === 1 ? '' : 's'} of the Transparency Database broken: ${bad.join('; ')}`);
          return 1;
        }
        // The body the database's batch endpoint takes (POST /api/v1/statements: `{"statements": [...]}`).
        const text = `${JSON.stringify({ statements }, null, 2)}\n`;
        if (values.out) {
          await fs.writeFile(values.out, text);
          console.log(`${statements.length} statements of reasons since ${values.since} written to ${values.out}; each passes the Transparency Database's rules`);
        } else process.stdout.write(text);
      } finally {
        await rt.close();
      }
      return 0;
    }
    case 'withheld:forget': {
      const rt = await createRuntime(config);
      try {
        const n = await forgetExpiredWithheld(rt.deps);
        console.log(`${n} withheld text${n === 1 ? '' : 's'} past the appeal window deleted${n > 0 ? '; the freed space scrubbed' : ''}`);
      } finally {
        await rt.close();
      }
      return 0;
    }
    default:
      throw new UsageError(`unknown verb "${verb}"`);
  }
}

class UsageError extends Error {}

/**
 * The demo accounts share one password printed in the README and the log: on a public server anyone could log in
 * as them (an admin-free but publisher-owning set). Refused in production; said loudly everywhere else.
 */
function refuseDemoInProduction(): void {
  if (process.env.NODE_ENV === 'production') {
    throw new UsageError('--demo is refused when NODE_ENV=production: every demo account shares a public password');
  }
  const line = '!'.repeat(78);
  console.warn(
    `${line}\n!! DEMO DATA: every demo account shares the public password ${DEMO_PASSWORD}.\n` +
      `!! Anyone who can reach this server can log in as them. Never use --demo on a reachable server.\n${line}`,
  );
}

async function logVerify(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      url: { type: 'string' },
      checkpoint: { type: 'string' },
      save: { type: 'string' },
      key: { type: 'string' },
      policy: { type: 'string' },
      proof: { type: 'string' },
      transparency: { type: 'boolean' },
    },
  });
  if (values.proof) {
    if (!values.key || !values.policy) throw new UsageError('log:verify --proof FILE needs --key VERIFIER_KEY and --policy FILE (it fetches nothing)');
  } else if (!values.url || !/^https?:\/\//.test(values.url)) throw new UsageError('log:verify needs --url BASE (http or https), or --proof FILE');
  if (values.transparency && !values.url) throw new UsageError('log:verify --transparency needs --url BASE: the counts are compared with the ones it publishes');
  try {
    const verified = await verifyLog({
      url: values.url,
      checkpointFile: values.checkpoint,
      saveFile: values.save,
      key: values.key,
      policyFile: values.policy,
      proofFile: values.proof,
    });
    if (values.transparency) await recountTransparency({ url: values.url!, size: verified.checkpoint.size });
    console.log('OK');
    return 0;
  } catch (err) {
    if (err instanceof RecountFailure) {
      console.error(`FAILED: ${err.message}`);
      return 1;
    }
    if (!(err instanceof VerifyFailure)) throw err;
    console.error(`FAILED: ${err.message}`);
    return 1;
  }
}

async function credentialVerify(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { url: { type: 'string' }, key: { type: 'string' }, policy: { type: 'string' } } });
  if (positionals.length !== 1) throw new UsageError('credential:verify needs one FILE (the credential, JSON or VC-JWT)');
  if (values.url !== undefined && !/^https?:\/\//.test(values.url)) throw new UsageError('credential:verify --url needs an http or https BASE');
  try {
    await verifyCredentialFile({ file: positionals[0]!, url: values.url, key: values.key, policyFile: values.policy });
    return 0;
  } catch (err) {
    if (!(err instanceof CredentialCheckError)) throw err;
    // "NOT verified" only when a check was made and failed; a file that could not be checked says so.
    console.error(err instanceof ChecksFailed ? `NOT verified: ${err.message}` : `could not check it: ${err.message}`);
    return 1;
  }
}

/** A `panels:issue` file, read, parsed and checked against the admin route's schema; every problem named. */
async function readStatementFile(file: string): Promise<StatementInput> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const why = e.code === 'ENOENT' ? 'no such file' : e.code === 'EISDIR' ? 'it is a directory' : e.message;
    throw new DomainError('invalid_request', `cannot read ${file}: ${why}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new DomainError('invalid_request', `${file} is not valid JSON: ${(err as Error).message}`);
  }
  const checked = validateStatementFile(json);
  if (!checked.ok) {
    throw new DomainError('invalid_request', `${file} is not a valid panel statement:`, checked.error.details ?? []);
  }
  return checked.value;
}

interface ServeOptions {
  demo: boolean;
  workers: number;
}

async function serve(config: Config, opts: ServeOptions): Promise<number> {
  const workers = opts.workers === 0 ? os.availableParallelism() : opts.workers;
  if (workers > 1 && cluster.isPrimary) {
    // Migrations and the demo data once, here, before any worker opens the database.
    const rt = await createRuntime(config);
    if (opts.demo) await seedDemo(rt.deps, (line) => console.log(line));
    const dialect = rt.database.dialect;
    await rt.close();
    await runPrimary(config, {
      workers,
      relayInEvery: dialect === 'postgres',
      argv: ['serve'],
      log: (line) => console.error(line),
    });
    console.log(`Credence is serving ${config.siteUrl} with ${workers} workers (database: ${dialect}); API docs at ${config.siteUrl}/docs`);
    return -1;
  }
  const worker = cluster.isWorker;
  const rt = await createRuntime(config);
  if (opts.demo && !worker) await seedDemo(rt.deps, (line) => console.log(line));
  const { app, metrics } = await buildApp(rt.deps, worker ? { worker: cluster.worker!.id } : {});
  // The webhook relay delivers the outbox; the transparency log's sequencer appends committed changes to the
  // Merkle tree and signs checkpoints (docs/transparency.md). A write answered by this process wakes both at once
  // (they poll as well, for writes made by other processes). Of several workers on SQLite only one runs them (see
  // ops/workers.ts); on PostgreSQL every worker does (endpoint leases and the log's state row make them take turns).
  const background = !worker || process.env[RELAY_ENV] === '1';
  const relay = background ? startWebhookRelay(rt.deps, { log: app.log, onAttempt: (o) => metrics.attempt(o) }) : null;
  const sequencer = background ? startLogSequencer(rt.deps, { log: app.log }) : null;
  // Takes of requests that ran out without work reopen (REQUEST_TAKE_HOURS); safe in every process at once.
  const takeExpiry = background ? startTakeExpiry(rt.deps, { log: app.log }) : null;
  // Text a decision withheld is deleted once its appeal window has closed; safe in every process at once.
  const withheldExpiry = background ? startWithheldExpiry(rt.deps, { log: app.log }) : null;
  // The mail outbox (SMTP_URL, or .eml files under DATA_DIR/mail/); leases make it safe in every process at once.
  const mail = background ? startMailSender(rt.deps, { log: app.log }) : null;
  // The cache tier's purger (CACHE_PURGE_URLS): offered in every background process, run by the lease's holder.
  const purger =
    background && config.cachePurgeUrls.length > 0
      ? startCachePurger(rt.deps, { urls: config.cachePurgeUrls, leaseMs: config.cachePurgeLeaseMs, log: app.log })
      : null;
  if (relay && sequencer) {
    app.server.on('request', (req: { method?: string }, res: NodeJS.EventEmitter) => {
      if (req.method !== 'GET' && req.method !== 'HEAD')
        res.once('finish', () => {
          relay.wake();
          sequencer.wake();
        });
    });
  }
  // Metrics: summed over workers by the primary; a single process serves its own on METRICS_PORT.
  let metricsServer: http.Server | undefined;
  if (worker) {
    // Constructing one installs prom-client's answer to the primary's requests; then it answers with ours.
    new AggregatorRegistry();
    AggregatorRegistry.setRegistries([metrics.registry]);
  }
  else if (config.metricsPort !== undefined) {
    metricsServer = http.createServer((req, res) => {
      if (req.url !== '/metrics') {
        res.writeHead(404).end();
        return;
      }
      metrics.registry.metrics().then(
        (text) => res.writeHead(200, { 'Content-Type': metrics.registry.contentType }).end(text),
        (err: unknown) => res.writeHead(500).end(String((err as Error).message)),
      );
    });
    await new Promise<void>((resolve) => metricsServer!.listen(config.metricsPort, config.metricsHost, resolve));
  }

  // Graceful shutdown: stop accepting connections (Fastify closes idle keep-alive ones and answers 503 to new
  // requests on busy ones), let requests in flight finish, let the relay finish the attempts under way and give up
  // its endpoint leases, then close the database. Past SHUTDOWN_TIMEOUT the process exits anyway.
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: finishing requests in flight');
    setTimeout(() => {
      app.log.error({ signal }, 'shutdown took longer than SHUTDOWN_TIMEOUT; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs).unref();
    await Promise.all([
      app.close(),
      relay?.stop(),
      sequencer?.stop(),
      takeExpiry?.stop(),
      withheldExpiry?.stop(),
      mail?.stop(),
      purger?.stop(),
      new Promise((resolve) => (metricsServer ? metricsServer.close(resolve) : resolve(null))),
    ]);
    await rt.close();
    app.log.info({ signal }, 'stopped');
    process.exit(0);
  };
  // `on`, not `once`: a worker gets Ctrl-C both from the terminal and from its primary; the second must not kill it.
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  await app.listen({ port: config.port, host: config.host });
  if (!worker) console.log(`Credence is serving ${config.siteUrl} (database: ${rt.database.dialect}); API docs at ${config.siteUrl}/docs`);
  if (!worker && !config.smtpUrl) console.log(`Mail is not sent (no SMTP_URL): each message is written to ${path.join(config.dataDir, 'mail')}/ and its link is logged`);
  return -1;
}

/** `credence backup FILE`: an online copy of the embedded database, written under a temporary name then renamed. */
async function backup(config: Config, file: string): Promise<void> {
  if (config.databaseUrl) throw new UsageError('backup copies the embedded database; on PostgreSQL use pg_dump (see docs/operations.md)');
  const source = path.join(config.dataDir, 'credence.sqlite');
  if (!existsSync(source)) throw new UsageError(`no database at ${source} (is DATA_DIR right?)`);
  if (existsSync(file)) throw new UsageError(`${file} exists; give a new file name`);
  const database = openDatabase({ sqliteFile: source });
  const partial = `${file}.partial`;
  try {
    await database.backup!(partial);
    await fs.rename(partial, file);
  } finally {
    await database.close();
    await fs.rm(partial, { force: true });
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (err: unknown) => {
    if (err instanceof UsageError || err instanceof ConfigError) {
      console.error(`credence: ${err.message}\n\n${HELP}`);
      process.exit(2);
    }
    if (err instanceof DomainError) {
      console.error(`credence: ${err.message}`);
      for (const d of err.details ?? []) console.error(`  ${d.field}: ${d.message}`);
      process.exit(1);
    }
    console.error(err);
    process.exit(1);
  },
);
