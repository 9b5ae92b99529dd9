// The demo's consent in every state, through the services people use: a writer who lets their own
// publication publish what it names at once, a claim waiting for its person, one declined, one withdrawn after it
// was published. Deterministic; a second run sees its marker (the standing permission) and leaves all alone.
import { findAccountByUsername } from '../domain/accounts/account.store.js';
import { confirmClaim, declineClaim, listMyClaims, setClaimPreference, withdrawContribution } from '../domain/consent/consent.service.js';
import type { Deps } from '../domain/deps.js';
import { registerPages } from '../domain/pages/page.service.js';
import { findPublisherBySlug } from '../domain/publishers/publisher.store.js';
import { DEMO_PUBLISHERS } from './demo-data.js';

const AT = '2026-11-18T10:00:00.000Z';
const at = (deps: Deps, iso: string): Deps => ({ ...deps, clock: { now: () => new Date(iso) } });

/** The pages a demo author wrote: its claims on them confirmed, as they would on /me (other claims stay as they are). */
export async function confirmDemoClaims(deps: Deps, accountId: number, pageIds: Set<number>): Promise<void> {
  for (const claim of await listMyClaims(deps, accountId, 'pending')) if (pageIds.has(claim.page_id)) await confirmClaim(deps, accountId, claim.id);
}

/** Pages the demo adds for its consent states (counted by seed.test.ts), and their events beside page.registered. */
export const DEMO_CONSENT_PAGES = 3;

export async function seedDemoConsent(deps: Deps, log: (line: string) => void): Promise<void> {
  const ledger = DEMO_PUBLISHERS.find((p) => p.slug === 'the-daily-ledger')!;
  const editor = (await findAccountByUsername(deps.db, ledger.owner.username))!;
  const ledgerRow = (await findPublisherBySlug(deps.db, ledger.slug))!;
  const marker = await deps.db.selectFrom('claim_preferences').select('account_id').where('account_id', '=', editor.id).where('publisher_id', '=', ledgerRow.id).executeTakeFirst();
  if (marker) return;
  const d = at(deps, AT);
  const name = async (slug: string, path: string, title: string, author: string) => {
    const p = DEMO_PUBLISHERS.find((x) => x.slug === slug)!;
    const row = (await findPublisherBySlug(deps.db, slug))!;
    await registerPages(d, row.id, [{ index: 0, ok: true, value: { url: `https://${p.host}${path}`, title, topic: 'politics', authors: [author] } }]);
    return (await findAccountByUsername(deps.db, author))!.id;
  };
  // A writer at their own publication lets it publish what it names at once.
  await setClaimPreference(d, editor.id, ledger.slug, 'permit');
  await name(ledger.slug, '/about/from-the-editor', 'From the editor: how we correct our mistakes', ledger.owner.username);
  // A claim waiting for its person.
  await name('northwind-health', '/opinion/guest-column-heat', 'Guest column: the summer the clinics ran out of fans', 'daniel-reyes');
  // One declined: the person never wrote it.
  const amara = await name('harbor-and-field', '/opinion/what-farmers-know', 'What farmers know about the weather', 'amara-okafor');
  for (const claim of await listMyClaims(d, amara, 'pending')) await declineClaim(d, amara, claim.id);
  // One withdrawn after it was published: the person took their name back.
  const priya = (await findAccountByUsername(deps.db, 'priya-raman'))!.id;
  const authorship = await deps.db.selectFrom('contributions').select('id').where('account_id', '=', priya).where('role', '=', 'author').orderBy('id').executeTakeFirst();
  if (authorship) await withdrawContribution(d, priya, authorship.id);
  log('demo consent: a standing permission, a pending claim, a declined one and a withdrawn authorship');
}
