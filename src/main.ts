#!/usr/bin/env node
// The `credence` command: the only place that reads process.env and argv.
import fs from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { buildApp } from './app.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { createRuntime } from './deps.js';
import { createAdmin } from './domain/accounts/account.service.js';
import { PASSWORD_MIN } from './domain/accounts/rules.js';
import type { StatementInput } from './domain/panels/panel.schema.js';
import { validateStatementFile } from './surfaces/panel-file.js';
import { issueFromFile } from './domain/panels/panel.service.js';
import { verifyDomainByOperator } from './domain/publishers/publisher.service.js';
import { DEMO_PASSWORD } from './demo/demo-data.js';
import { seedDemo } from './demo/seed.js';
import { DomainError } from './domain/errors.js';
import { VerifyFailure, verifyLog } from './audit/log-verify.js';
import { startWebhookRelay } from './jobs/relay.js';
import { startLogSequencer } from './jobs/log-sequencer.js';

const HELP = `Usage: credence <verb> [options]

  serve [--demo]                       run the HTTP service (--demo: load the demo data first)
  migrate                              apply pending migrations and exit
  seed --demo                          load the demo dataset (idempotent)
  admin:create --email E --password P --username U [--name N]
                                       make an admin account (or promote the account with that email)
  domains:verify DOMAIN --publisher SLUG
                                       verify a domain by hand for a publisher
  panels:issue FILE.json               create an expert panel statement from a JSON file, or issue its next
                                       version when its id exists (the same file again changes nothing)
  log:verify --url BASE [--checkpoint FILE] [--save FILE] [--key VERIFIER_KEY]
                                       check a transparency log from its public API: the whole log, or
                                       consistency with a saved checkpoint; --save keeps today's checkpoint

Settings come from the environment; see the README.`;

async function main(argv: string[]): Promise<number> {
  const [verb, ...rest] = argv;
  if (!verb || verb === 'help' || verb === '--help' || verb === '-h') {
    console.log(HELP);
    return verb ? 0 : 1;
  }
  // An auditor's check needs no settings, database or key of its own: only the log's public API.
  if (verb === 'log:verify') return logVerify(rest);
  const config = loadConfig(process.env);
  switch (verb) {
    case 'serve': {
      const demo = parseArgs({ args: rest, options: { demo: { type: 'boolean', default: false } } }).values.demo ?? false;
      if (demo) refuseDemoInProduction();
      return serve(config, demo);
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
    options: { url: { type: 'string' }, checkpoint: { type: 'string' }, save: { type: 'string' }, key: { type: 'string' } },
  });
  if (!values.url || !/^https?:\/\//.test(values.url)) throw new UsageError('log:verify needs --url BASE (http or https)');
  try {
    await verifyLog({ url: values.url, checkpointFile: values.checkpoint, saveFile: values.save, key: values.key });
    console.log('OK');
    return 0;
  } catch (err) {
    if (!(err instanceof VerifyFailure)) throw err;
    console.error(`FAILED: ${err.message}`);
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

async function serve(config: Config, demo: boolean): Promise<number> {
  const rt = await createRuntime(config);
  if (demo) await seedDemo(rt.deps, (line) => console.log(line));
  const { app } = await buildApp(rt.deps);
  // The webhook relay delivers the outbox; a write answered by this process wakes it at once (it polls as well,
  // for writes made by other processes).
  const relay = startWebhookRelay(rt.deps, { log: app.log });
  // The transparency log's sequencer appends committed changes to the Merkle tree and signs checkpoints, after
  // commit (docs/transparency.md); it is woken the same way.
  const sequencer = startLogSequencer(rt.deps, { log: app.log });
  app.server.on('request', (req: { method?: string }, res: NodeJS.EventEmitter) => {
    if (req.method !== 'GET' && req.method !== 'HEAD')
      res.once('finish', () => {
        relay.wake();
        sequencer.wake();
      });
  });
  const shutdown = async (signal: string) => {
    app.log.info({ signal }, 'shutting down');
    await app.close();
    await relay.stop();
    await sequencer.stop();
    await rt.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  await app.listen({ port: config.port, host: config.host });
  console.log(`Credence is serving ${config.siteUrl} (database: ${rt.database.dialect}); API docs at ${config.siteUrl}/docs`);
  return -1;
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
