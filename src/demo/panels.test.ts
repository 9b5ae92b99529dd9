import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../../test/client.js';
import { startTestApp, type TestApp } from '../../test/harness.js';
import { createAccount } from '../domain/accounts/account.service.js';
import { validateStatementFile } from '../surfaces/panel-file.js';
import { changesBetween, contradictions, normaliseContent } from '../domain/panels/rules.js';
import { DEMO_CONTRIBUTORS, DEMO_PASSWORD, demoEmail } from './demo-data.js';
import { DEMO_PANELS, seedDemoPanels } from './panels.js';

const linkedUsernames = [...new Set(DEMO_PANELS.flatMap((s) => s.versions.flatMap((v) => v.content.panel.flatMap((p) => p.username ?? []))))];
const versionTotal = DEMO_PANELS.reduce((n, s) => n + s.versions.length, 0);

describe('the demo statements', () => {
  it('cover several demo topics, some with two or three versions', () => {
    expect(new Set(DEMO_PANELS.map((s) => s.versions[0]!.content.topic))).toEqual(new Set(['health', 'climate', 'economy', 'science', 'technology']));
    expect(DEMO_PANELS.filter((s) => s.versions.length >= 2).length).toBeGreaterThanOrEqual(4);
    expect(DEMO_PANELS.some((s) => s.versions.length === 3)).toBe(true);
    expect(new Set(DEMO_PANELS.map((s) => s.id)).size).toBe(DEMO_PANELS.length);
  });

  it('link panellists only to demo accounts', () => {
    const demo = new Set(DEMO_CONTRIBUTORS.map((c) => c.username));
    expect(linkedUsernames.filter((u) => !demo.has(u))).toEqual([]);
  });

  it('are each valid, consistent at their issue date, later than and different from the version before', () => {
    for (const s of DEMO_PANELS) {
      s.versions.forEach((v, i) => {
        const file = validateStatementFile({ id: s.id, version: i + 1, ...v.content });
        expect(file.ok, `${s.id} v${i + 1}: ${file.ok ? '' : JSON.stringify(file.error.details)}`).toBe(true);
        expect(contradictions(normaliseContent(v.content), v.issuedAt.slice(0, 10)), `${s.id} v${i + 1}`).toEqual([]);
        if (i > 0) {
          const before = s.versions[i - 1]!;
          expect(v.issuedAt > before.issuedAt, `${s.id} v${i + 1} is issued after v${i}`).toBe(true);
          expect(Object.keys(changesBetween({ content: normaliseContent(before.content), sources: before.content.sources ?? [] }, { content: normaliseContent(v.content), sources: v.content.sources ?? [] })).length).toBeGreaterThan(0);
        }
      });
    }
  });
});

describe('seedDemoPanels', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
    // Only the accounts the statements link to: the rest of the demo is not needed here.
    for (const username of linkedUsernames) {
      const person = DEMO_CONTRIBUTORS.find((c) => c.username === username)!;
      await createAccount(t.runtime.deps, { email: demoEmail(username), password: DEMO_PASSWORD, name: person.name, username });
    }
  });
  afterAll(async () => t?.close());

  it('issues every version at its date, then changes nothing on a second run', async () => {
    const lines: string[] = [];
    await seedDemoPanels(t.runtime.deps, (l) => lines.push(l));
    expect(lines.at(-1)).toContain(`${DEMO_PANELS.length} statements, ${versionTotal} versions`);
    const countEvents = async () =>
      (await t.runtime.deps.db.selectFrom('events').select('id').where('type', '=', 'panel.updated').execute()).length;
    expect(await countEvents()).toBe(versionTotal);

    await seedDemoPanels(t.runtime.deps, (l) => lines.push(l));
    expect(lines.at(-1)).toContain('already present');
    expect(await countEvents()).toBe(versionTotal);

    const anon = new Client(t.baseUrl);
    const measles = DEMO_PANELS.find((s) => s.versions.length === 3)!;
    const v2 = await anon.get(`/v1/panels/${measles.id}?version=2`);
    expect(v2.status, v2.text).toBe(200);
    expect(v2.body).toMatchObject({ version: 2, status: 'superseded', current_version: 3, issued_at: measles.versions[1]!.issuedAt });
    const health = await anon.get('/v1/panels?topic=health');
    expect(health.body.meta.total).toBe(DEMO_PANELS.filter((s) => s.versions.at(-1)!.content.topic === 'health').length);
  });

  it('makes the linked panellists of current versions experts', async () => {
    const rows = await t.runtime.deps.db.selectFrom('accounts').select(['username', 'level']).execute();
    const current = new Set(DEMO_PANELS.flatMap((s) => s.versions.at(-1)!.content.panel.flatMap((p) => p.username ?? [])));
    for (const r of rows) expect(r.level, r.username).toBe(current.has(r.username) ? 'expert' : 'newcomer');
  });
});
