// What the web page tests share: a publication with a page on record (an author named by the publisher, an accepted
// correction with its evidence, an accepted review by someone with a hostile name), open requests, and an expert
// panel statement issued twice. Built through the API and the services, as people and operators would.
import { expect } from 'vitest';
import { createStatement, issueVersion } from '../../src/domain/panels/panel.service.js';
import { confirmAddress, confirmClaims, publisher, signup, type TestPublisher, type TestUser } from '../factories.js';
import type { TestApp } from '../harness.js';
import { FormClient } from './browser-client.js';

export const HOSTILE = '<img src=x onerror=alert(1)>';

export interface PagesWorld {
  t: TestApp;
  pub: TestPublisher;
  author: TestUser;
  specialist: TestUser;
  hostile: TestUser;
  page: { id: number; url: string; title: string };
  /** The accepted correction on `page`. */
  correctionId: number;
  /** The author's contribution (named by the publisher, no evidence). */
  authorshipId: number;
  requestIds: number[];
  panelId: string;
  everyEmail: string[];
}

export async function makePagesWorld(t: TestApp): Promise<PagesWorld> {
  const pub = await publisher(t);
  const author = await signup(t, { name: 'Nellie Bly' });
  const specialist = await signup(t, { name: 'Ida B. Wells' });
  const hostile = await signup(t, { name: HOSTILE });
  const url = `https://${pub.domain}/news/measles-outbreak`;
  const title = 'Measles cases rise in the north';
  const reg = await pub.api.post('/api/v1/pages', { url, title, topic: 'health', authors: [author.username] });
  await confirmClaims(author);
  expect(reg.status, reg.text).toBe(201);
  const pageId = reg.body.data.id as number;
  await pub.api.post('/api/v1/pages', { url: `https://${pub.domain}/climate/explainer`, title: 'The climate explainer', topic: 'climate' });

  const accept = async (who: TestUser, body: Record<string, unknown>) => {
    const sub = await who.client.post('/api/v1/submissions', body);
    expect(sub.status, sub.text).toBe(201);
    const decided = await pub.api.post('/api/v1/submissions/decide', { submission_id: sub.body.data.id, decision: 'accept', note: 'Checked against the archive.' });
    expect(decided.status, decided.text).toBe(200);
    return decided.body.data.contribution_id as number;
  };
  const correctionId = await accept(specialist, {
    url,
    role: 'correction',
    summary: 'Fixed the year the outbreak began',
    evidence: {
      before: 'The outbreak began in 1887 in the northern districts, officials said.',
      after: 'The outbreak began in 1889 in the northern districts, health officials said.',
      reason: 'The health ministry archive dates the first cases to March 1889.',
      sources: ['https://archive.example/ministry/report-1889', 'https://library.example/papers?id=42&lang=en'],
    },
  });
  await accept(hostile, { url, role: 'review', summary: 'Reviewed the statistics', evidence: { reason: 'The figures match the ministry tables.', sources: [] } });

  const opened = await pub.api.post('/api/v1/requests', [
    { url, request_type: 'fact_checker', title: 'Check the vaccination figures', brief: 'Compare the rates with the ministry dashboard.', topic: 'health' },
    { url: `https://${pub.domain}/climate/explainer`, request_type: 'reviewer', title: 'Review the climate explainer', topic: 'climate' },
  ]);
  expect(opened.status, opened.text).toBe(200);
  const requestIds = (opened.body.data.results as { id: number }[]).map((r) => r.id);

  const authorship = await t.runtime.deps.db
    .selectFrom('contributions')
    .select('id')
    .where('page_id', '=', pageId)
    .where('role', '=', 'author')
    .executeTakeFirstOrThrow();

  const panelId = `measles-vaccine-${pub.slug}`;
  const v1 = {
    topic: 'health',
    question: 'Is the MMR vaccine safe for children?',
    answer: 'Yes. Serious side effects are rare.',
    certainty: 'moderate' as const,
    vote: { agree: 2, dissent: 0 },
    panel: [
      { name: 'Ida B. Wells', role: 'chair', vote: 'agree' as const, username: specialist.username },
      { name: 'Dr. Ana Ruiz', role: 'member', vote: 'agree' as const },
    ],
    revisit_by: '2027-06-01',
    reopen_triggers: ['new_study' as const],
  };
  await createStatement(t.runtime.deps, { id: panelId, ...v1 });
  t.clock.advanceDays(10);
  await issueVersion(t.runtime.deps, panelId, {
    ...v1,
    answer: 'Yes. Serious side effects are very rare, and the protection lasts for life.',
    certainty: 'high',
    vote: { agree: 2, dissent: 1 },
    panel: [...v1.panel, { name: 'Dr. Omar Haddad', role: 'member', vote: 'dissent' as const }],
    reopen_triggers: ['new_study', 'source_corrected'],
  });

  return {
    t,
    pub,
    author,
    specialist,
    hostile,
    page: { id: pageId, url, title },
    correctionId,
    authorshipId: authorship.id,
    requestIds,
    panelId,
    everyEmail: [pub.owner.email, author.email, specialist.email, hostile.email],
  };
}

/** A browser-like client signed in as a fresh contributor (signed up through the form). */
export async function signedInClient(t: TestApp, name = 'Form Person'): Promise<{ b: FormClient; username: string; email: string }> {
  const b = new FormClient(t.baseUrl);
  const username = `web-${Math.random().toString(36).slice(2, 10)}`;
  const email = `${username}@web.test`;
  await b.get('/signup');
  const res = await b.post('/signup', { name, username, email, password: 'long enough password' });
  expect(res.status, res.text).toBe(303);
  await confirmAddress(t, email);
  // Sign-up redirects to the log-in form (the same for a taken email); log in from it.
  const login = await b.post('/login?next=/me', { email, password: 'long enough password' });
  expect(login.status, login.text).toBe(303);
  return { b, username, email };
}

export function jsonLdOf(pageHtml: string): any[] {
  return [...pageHtml.matchAll(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/g)].map((m) => JSON.parse(m[1]!));
}
