// Panel statements that cannot be issued or read: contradictions, unknown values, unknown accounts, wrong versions,
// and the /v1 error envelope for reads.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Client, type Res } from '../client.js';
import { signup } from '../factories.js';
import { startTestApp, type TestApp } from '../harness.js';
import { makeAdmin, panelEvents, statementBody, type TestAdmin, versionBody, versionCount } from './panels.fixtures.js';

let t: TestApp;
let admin: TestAdmin;
let anon: Client;
beforeAll(async () => {
  t = await startTestApp();
  admin = await makeAdmin(t);
  anon = new Client(t.baseUrl);
});
afterAll(async () => t?.close());
beforeEach(() => t.clock.advance(60_000));

const create = (body: Record<string, unknown>) => admin.client.post('/api/v1/admin/panels', body);
const issue = (id: string, body: Record<string, unknown>) => admin.client.post(`/api/v1/admin/panels/${id}/versions`, body);

/** A 400 in the /api/v1 envelope whose details include each `[field, message]` given. */
function expectInvalid(res: Res, ...expected: [string, string | RegExp][]) {
  expect(res.status, res.text).toBe(400);
  expect(res.body.success).toBe(false);
  expect(res.body.error.code).toBe('invalid_request');
  const details = res.body.error.details as { field: string; message: string }[];
  for (const [field, message] of expected) {
    expect(details, res.text).toContainEqual({ field, message: typeof message === 'string' ? message : expect.stringMatching(message) });
  }
  // The message names the first field, so a person reading only the message knows where to look.
  if (details[0]!.field !== '(body)') expect(res.body.error.message).toContain(details[0]!.field);
}

describe('a statement that contradicts itself', () => {
  it('refuses vote totals that are not the panellists’ votes, naming the field', async () => {
    const body = statementBody({ vote: { agree: 5, dissent: 1 } });
    expectInvalid(await create(body), ['vote.agree', 'is 5 but 4 panellists voted agree']);
    expect(await versionCount(t, body.id)).toBe(0);
  });

  it('lists every contradiction at once', async () => {
    const res = await create(statementBody({ vote: { agree: 3, dissent: 0 }, revisit_by: '2026-11-21' }));
    expectInvalid(
      res,
      ['vote.agree', 'is 3 but 4 panellists voted agree'],
      ['vote.dissent', 'is 0 but 1 panellist voted dissent'],
      ['revisit_by', 'must be after the issue date (2026-11-21)'],
    );
  });

  it('does not count abstentions on either side', async () => {
    const panel = statementBody().panel.map((p: Record<string, string>, i: number) => (i === 0 ? { ...p, vote: 'abstain' } : p));
    expectInvalid(await create(statementBody({ panel })), ['vote.agree', 'is 4 but 3 panellists voted agree']);
    expect((await create(statementBody({ panel, vote: { agree: 3, dissent: 1 } }))).status).toBe(201);
  });

  it('refuses one account on the panel twice', async () => {
    const u = await signup(t);
    const panel = [
      { name: 'Dr. A', role: 'chair', vote: 'agree', username: u.username },
      { name: 'Dr. B', role: 'member', vote: 'agree' },
      { name: 'Dr. A again', role: 'member', vote: 'agree', username: u.username },
    ];
    expectInvalid(await create(statementBody({ panel, vote: { agree: 3, dissent: 0 } })), [
      'panel.2.username',
      'names the same account as panel.0',
    ]);
  });

  it('refuses blank text', async () => {
    const panel = [{ name: '   ', role: 'chair', vote: 'agree' }];
    expectInvalid(
      await create(statementBody({ question: '   ', panel, vote: { agree: 1, dissent: 0 } })),
      ['question', 'must not be blank'],
      ['panel.0.name', 'must not be blank'],
    );
  });

  it('applies the same rules to a new version, and writes nothing when it refuses', async () => {
    const v1 = statementBody();
    expect((await create(v1)).status).toBe(201);
    expectInvalid(await issue(v1.id, versionBody(v1, { version: 2, vote: { agree: 4, dissent: 0 } })), [
      'vote.dissent',
      'is 0 but 1 panellist voted dissent',
    ]);
    expect(await versionCount(t, v1.id)).toBe(1);
    expect(await panelEvents(t, v1.id)).toHaveLength(1);
    expect((await anon.get(`/v1/panels/${v1.id}`)).body).toMatchObject({ version: 1, status: 'issued' });
  });
});

describe('values outside the vocabularies', () => {
  it('refuses an unknown certainty, listing the allowed values', async () => {
    expectInvalid(await create(statementBody({ certainty: 'medium' })), [
      'certainty',
      'must be one of: high, moderate, low-moderate, low, very-low',
    ]);
  });

  it('refuses an unknown reopen trigger, listing the allowed values', async () => {
    expectInvalid(await create(statementBody({ reopen_triggers: ['new_study', 'court_ruling'] })), [
      'reopen_triggers.1',
      'must be one of: new_study, source_corrected, alert_extended',
    ]);
  });

  it('refuses a trigger listed twice', async () => {
    expectInvalid(await create(statementBody({ reopen_triggers: ['new_study', 'new_study'] })), ['reopen_triggers', 'must not list an item twice']);
  });

  it('refuses an unknown panel vote, listing the allowed values', async () => {
    const panel = statementBody().panel.map((p: Record<string, string>, i: number) => (i === 4 ? { ...p, vote: 'against' } : p));
    expectInvalid(await create(statementBody({ panel })), ['panel.4.vote', 'must be one of: agree, dissent, abstain']);
  });

  it('refuses an unknown username on the panel', async () => {
    const panel = statementBody().panel.map((p: Record<string, string>, i: number) => (i === 1 ? { ...p, username: 'nobody-here' } : p));
    expectInvalid(await create(statementBody({ panel })), ['panel.1.username', 'no account is called nobody-here']);
  });

  it('refuses dates that are not YYYY-MM-DD days', async () => {
    for (const revisit_by of ['2027-02-30', '01/06/2027', '2027-06-01T00:00:00Z']) {
      expectInvalid(await create(statementBody({ revisit_by })), ['revisit_by', 'must be a date, such as 2026-11-28']);
    }
  });

  it('refuses fields the server decides, unknown fields and missing ones', async () => {
    expectInvalid(await create(statementBody({ status: 'issued' })), ['status', 'is not a known field']);
    expectInvalid(await create(statementBody({ issued_at: '2026-01-01T00:00:00Z' })), ['issued_at', 'is not a known field']);
    const { answer: _answer, ...noAnswer } = statementBody();
    expectInvalid(await create(noAnswer), ['answer', 'is required']);
    expectInvalid(await create(statementBody({ panel: [] })), ['panel', 'must list at least one item']);
    expectInvalid(await create(statementBody({ vote: { agree: 4, dissent: 1, abstain: 0 } })), ['vote.abstain', 'is not a known field']);
    expectInvalid(await create(statementBody({ vote: { agree: '4', dissent: 1 } })), ['vote.agree', 'must be a whole number']);
  });

  it('refuses an id that is not slug-like', async () => {
    for (const id of ['Vitamin D', 'ab', '-leading', 'a/b', '1234', 'x'.repeat(101)]) {
      expectInvalid(await create(statementBody({ id })), ['id', /lowercase letters, digits or hyphens/]);
    }
  });
});

describe('versions that cannot be issued', () => {
  it('refuses a second statement with the same id with 409 conflict', async () => {
    const body = statementBody();
    expect((await create(body)).status).toBe(201);
    const again = await create({ ...body, answer: 'Another answer.' });
    expect(again.status, again.text).toBe(409);
    expect(again.body.error.code).toBe('conflict');
    expect(await versionCount(t, body.id)).toBe(1);
  });

  it('starts every statement at version 1', async () => {
    expectInvalid(await create(statementBody({ version: 2 })), ['version', 'a new statement starts at version 1']);
  });

  it('answers 404 for the next version of a statement that does not exist', async () => {
    const res = await issue('no-such-statement', versionBody(statementBody(), { version: 2 }));
    expect(res.status, res.text).toBe(404);
    expect(res.body).toMatchObject({ success: false, error: { code: 'not_found' } });
  });

  it('answers 409 for a version that is not the next one', async () => {
    const v1 = statementBody();
    expect((await create(v1)).status).toBe(201);
    expect((await issue(v1.id, versionBody(v1, { version: 2, certainty: 'moderate' }))).status).toBe(201);
    for (const version of [2, 4, 99]) {
      const res = await issue(v1.id, versionBody(v1, { version, certainty: 'high' }));
      expect(res.status, res.text).toBe(409);
      expect(res.body.error.code).toBe('conflict');
      expect(res.body.error.message).toContain('next version is 3');
    }
    expectInvalid(await issue(v1.id, versionBody(v1, { version: 1 })), ['version', 'must be at least 2']);
    expect(await versionCount(t, v1.id)).toBe(2);
  });

  it('refuses a version identical to the current one', async () => {
    const v1 = statementBody();
    expect((await create(v1)).status).toBe(201);
    const res = await issue(v1.id, versionBody(v1, { version: 2 }));
    expectInvalid(res, ['(body)', 'repeats version 1']);
    // Whitespace and topic spelling are normalised before comparing.
    expectInvalid(await issue(v1.id, versionBody(v1, { version: 2, topic: ' Health', answer: ` ${v1.answer} ` })), ['(body)', 'repeats version 1']);
    expect(await versionCount(t, v1.id)).toBe(1);
  });

  it('refuses an id in the body of a new version (the path names the statement)', async () => {
    const v1 = statementBody();
    expect((await create(v1)).status).toBe(201);
    expectInvalid(await issue(v1.id, { ...versionBody(v1, { version: 2, certainty: 'high' }), id: v1.id }), ['id', 'is not a known field']);
  });
});

describe('reading', () => {
  let id: string;
  beforeAll(async () => {
    const body = statementBody();
    id = body.id;
    expect((await create(body)).status).toBe(201);
  });

  /** The /v1 envelope, exactly: `{error: {code, message}}`. */
  function expectV1Error(res: Res, status: number, code: string) {
    expect(res.status, res.text).toBe(status);
    expect(Object.keys(res.body)).toEqual(['error']);
    expect(res.body.error.code).toBe(code);
    expect(typeof res.body.error.message).toBe('string');
    expect(res.headers.get('x-request-id')).toBeTruthy();
  }

  it('answers 404 not_found for an unknown statement', async () => {
    expectV1Error(await anon.get('/v1/panels/no-such-statement'), 404, 'not_found');
    expectV1Error(await anon.get('/v1/panels/no-such-statement?version=1'), 404, 'not_found');
  });

  it('answers 404 not_found for a version that does not exist, naming it', async () => {
    const res = await anon.get(`/v1/panels/${id}?version=2`);
    expectV1Error(res, 404, 'not_found');
    expect(res.body.error.message).toContain('Version 2');
  });

  it('answers 400 for a version that is not a positive integer', async () => {
    for (const v of ['abc', '1.5', '0', '-1', '99999999999', '']) {
      const res = await anon.get(`/v1/panels/${id}?version=${v}`);
      expectV1Error(res, 400, 'invalid_request');
      expect(res.body.error.details[0].field).toBe('version');
    }
  });

  it('answers 400 for bad paging of the list', async () => {
    expectV1Error(await anon.get('/v1/panels?topic=health&page=0'), 400, 'invalid_request');
    expectV1Error(await anon.get('/v1/panels?topic=health&per_page=x'), 400, 'invalid_request');
    expectV1Error(await anon.get(`/v1/panels?topic=${'t'.repeat(51)}`), 400, 'invalid_request');
  });
});
