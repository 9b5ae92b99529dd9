// What the panel tests share: an admin signed in through the real login route, and a valid statement to vary.
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { createAdmin } from '../../src/domain/accounts/account.service.js';
import { Client, randomIp } from '../client.js';
import type { TestApp } from '../harness.js';

export const unique = () => randomBytes(4).toString('hex');

export interface TestAdmin {
  id: number;
  email: string;
  password: string;
  token: string;
  client: Client;
}

/** An admin made as an operator makes one (createAdmin, what `admin:create` runs), then logged in over HTTP. */
export async function makeAdmin(t: TestApp): Promise<TestAdmin> {
  const username = `admin-${unique()}`;
  const email = `${username}@ops.test`;
  const password = 'a long admin password';
  const { user_id } = await createAdmin(t.runtime.deps, { email, password, username, name: `Admin ${username}` });
  const client = new Client(t.baseUrl, randomIp());
  const res = await client.post('/api/v1/auth/login', { email, password });
  expect(res.status, res.text).toBe(200);
  return { id: user_id, email, password, token: res.body.data.token, client: client.as(res.body.data.token) };
}

/** A valid new statement: five panellists, four agreeing. */
export function statementBody(over: Record<string, unknown> = {}): Record<string, any> {
  return {
    id: `vitamin-d-${unique()}`,
    topic: 'health',
    question: 'Does daily vitamin D supplementation prevent acute respiratory infections in healthy adults?',
    answer:
      'Possibly a small reduction in people who start with low vitamin D levels; little or no effect in people whose levels are already adequate.',
    certainty: 'low-moderate',
    vote: { agree: 4, dissent: 1 },
    panel: [
      { name: 'Dr. Helena Voss', role: 'chair', vote: 'agree' },
      { name: 'Prof. Kofi Asante', role: 'member', vote: 'agree' },
      { name: 'Dr. Ines Carvalho', role: 'methodologist', vote: 'agree' },
      { name: 'Dr. Ruth Okonkwo', role: 'member', vote: 'agree' },
      { name: 'Dr. Pavel Horak', role: 'member', vote: 'dissent' },
    ],
    revisit_by: '2027-06-01',
    reopen_triggers: ['new_study', 'source_corrected'],
    ...over,
  };
}

/** The body of a next version: the statement without its id, changed by `over`. */
export function versionBody(statement: Record<string, any>, over: Record<string, unknown> = {}): Record<string, any> {
  const { id: _id, version: _version, ...rest } = statement;
  return { ...rest, ...over };
}

/** Every `panel.updated` event of one statement, oldest first, payload parsed. */
export async function panelEvents(t: TestApp, panelId: string) {
  const rows = await t.runtime.deps.db.selectFrom('events').selectAll().where('type', '=', 'panel.updated').orderBy('id').execute();
  return rows
    .map((r) => ({ ...r, payload: JSON.parse(r.payload) as Record<string, any> }))
    .filter((r) => r.payload.panel_id === panelId);
}

/** How many versions of a statement the database holds. */
export async function versionCount(t: TestApp, panelId: string): Promise<number> {
  const rows = await t.runtime.deps.db
    .selectFrom('panel_versions as v')
    .innerJoin('panel_statements as s', 's.id', 'v.statement_id')
    .select('v.version')
    .where('s.slug', '=', panelId)
    .execute();
  return rows.length;
}
