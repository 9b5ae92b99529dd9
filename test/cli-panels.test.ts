// `credence panels:issue FILE.json`, run as a real process: create a statement, issue its next versions, change
// nothing on a repeat, and refuse bad files with messages that name the problem.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/db/client.js';
import { processEnv } from './process-env.js';

const run = promisify(execFile);
const TSX = path.resolve('node_modules/.bin/tsx');
const MAIN = path.resolve('src/main.ts');

let dir: string;
let env: Record<string, string>;
let open: () => Database;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  const p = await processEnv('cli-panels');
  dir = p.dataDir;
  env = p.env;
  open = () => p.open();
  cleanup = p.cleanup;
});
afterAll(async () => cleanup?.());

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

async function credence(...args: string[]): Promise<Outcome> {
  try {
    const r = await run(TSX, [MAIN, ...args], { env, timeout: 60_000 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** Write a statement file and return its path. */
function file(name: string, content: unknown): string {
  const p = path.join(dir, name);
  fs.writeFileSync(p, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return p;
}

const statement = {
  id: 'heat-alert-threshold-over-75s',
  topic: 'climate',
  question: 'Should the public heat-health alert start at a lower temperature for people over 75?',
  answer: 'Yes. Deaths among people over 75 begin to rise at lower temperatures than the current alert level.',
  certainty: 'low-moderate',
  vote: { agree: 3, dissent: 1 },
  panel: [
    { name: 'Dr. Clara Jensen', role: 'chair', vote: 'agree' },
    { name: 'Prof. Tobias Lindqvist', role: 'member', vote: 'agree' },
    { name: 'Dr. Asha Nair', role: 'methodologist', vote: 'agree' },
    { name: 'Dr. Martin Keane', role: 'member', vote: 'dissent' },
  ],
  // Far enough ahead that the real clock the CLI runs on stays before it.
  revisit_by: '2099-06-01',
  reopen_triggers: ['new_study', 'alert_extended'],
};

// Each verb is a real process started through tsx: seconds apiece on a busy machine.
describe('credence panels:issue', { timeout: 120_000 }, () => {
  it('is in the help text', async () => {
    const r = await credence('help');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('panels:issue FILE.json');
  });

  it('needs exactly one file (exit 2, with the usage)', async () => {
    for (const args of [[], ['a.json', 'b.json']]) {
      const r = await credence('panels:issue', ...args);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('panels:issue needs one FILE.json');
      expect(r.stderr).toContain('Usage:');
    }
  });

  it('says when the file cannot be read or is not JSON (exit 1)', async () => {
    const missing = await credence('panels:issue', path.join(dir, 'nope.json'));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/cannot read .*nope\.json: no such file/);

    const broken = await credence('panels:issue', file('broken.json', '{"id": "x",'));
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/broken\.json is not valid JSON/);
  });

  it('checks the file against the admin route’s schema and lists every problem', async () => {
    const r = await credence(
      'panels:issue',
      file('bad.json', { ...statement, certainty: 'fairly sure', reopen_triggers: ['court_ruling'], status: 'issued' }),
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/bad\.json is not a valid panel statement/);
    expect(r.stderr).toContain('certainty: must be one of: high, moderate, low-moderate, low, very-low');
    expect(r.stderr).toContain('reopen_triggers.0: must be one of: new_study, source_corrected, alert_extended');
    expect(r.stderr).toContain('status: is not a known field');
    expect(r.stderr).not.toContain('    at '); // no stack trace
  });

  it('refuses a statement that contradicts itself, naming the field', async () => {
    const r = await credence('panels:issue', file('contradiction.json', { ...statement, vote: { agree: 4, dissent: 1 } }));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('vote.agree: is 4 but 3 panellists voted agree');
  });

  it('refuses a panellist username nobody has', async () => {
    const panel = statement.panel.map((p, i) => (i === 0 ? { ...p, username: 'no-such-expert' } : p));
    const r = await credence('panels:issue', file('stranger.json', { ...statement, panel }));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('panel.0.username: no account is called no-such-expert');
  });

  it('creates, changes nothing on a repeat, issues next versions and refuses a stale one', async () => {
    const v1 = file('v1.json', statement);
    const created = await credence('panels:issue', v1);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toContain('panel statement heat-alert-threshold-over-75s created: version 1 issued at');

    const again = await credence('panels:issue', v1);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('unchanged: version 1 already says this');

    // No version in the file: the next one.
    const v2 = file('v2.json', { ...statement, certainty: 'moderate', revisit_by: '2099-09-01' });
    const issued = await credence('panels:issue', v2);
    expect(issued.code, issued.stderr).toBe(0);
    expect(issued.stdout).toContain('version 2 issued at');
    expect(issued.stdout).toContain('version 1 is superseded');

    // A file naming the current version with other content is someone else's edit: refused.
    const stale = await credence('panels:issue', file('stale.json', { ...statement, version: 2, answer: 'No.' }));
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain('Version 2 of heat-alert-threshold-over-75s is already issued with other content');

    const skipped = await credence('panels:issue', file('skip.json', { ...statement, version: 5, answer: 'No.' }));
    expect(skipped.code).toBe(1);
    expect(skipped.stderr).toContain('the next version is 3, not 5');

    const v3 = await credence('panels:issue', file('v3.json', { ...statement, version: 3, certainty: 'moderate', reopen_triggers: ['new_study'] }));
    expect(v3.code, v3.stderr).toBe(0);
    expect(v3.stdout).toContain('version 3 issued at');

    const database = open();
    try {
      const versions = await database.db
        .selectFrom('panel_versions as v')
        .innerJoin('panel_statements as s', 's.id', 'v.statement_id')
        .select(['v.version', 'v.status', 'v.certainty', 's.current_version'])
        .where('s.slug', '=', statement.id)
        .orderBy('v.version')
        .execute();
      expect(versions).toEqual([
        { version: 1, status: 'superseded', certainty: 'low-moderate', current_version: 3 },
        { version: 2, status: 'superseded', certainty: 'moderate', current_version: 3 },
        { version: 3, status: 'issued', certainty: 'moderate', current_version: 3 },
      ]);
      const events = await database.db.selectFrom('events').select('payload').where('type', '=', 'panel.updated').orderBy('id').execute();
      expect(events.map((e) => JSON.parse(e.payload) as { version: number; changes: Record<string, unknown> })).toEqual([
        expect.objectContaining({ version: 1, previous_version: null }),
        expect.objectContaining({ version: 2, previous_version: 1, changes: { certainty: { from: 'low-moderate', to: 'moderate' }, revisit_by: { from: '2099-06-01', to: '2099-09-01' } } }),
        expect.objectContaining({
          version: 3,
          previous_version: 2,
          changes: { revisit_by: { from: '2099-09-01', to: '2099-06-01' }, reopen_triggers: { from: ['new_study', 'alert_extended'], to: ['new_study'] } },
        }),
      ]);
    } finally {
      await database.close();
    }
  });
});
