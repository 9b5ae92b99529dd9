// The WordPress plugin end to end: Debian's WordPress under PHP's built-in server, a fresh MariaDB database, and a
// real Credence (the in-process harness) behind a TCP relay the test can cut, to play the service going down.
// Skipped, saying why, when PHP, WordPress or MariaDB are absent (CI sets CREDENCE_WORDPRESS_REQUIRED=1: it fails
// instead); run once, on the SQLite run, since the plugin sees only HTTP.
import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/cluster.js';
import { type TestApp, startTestApp } from '../harness.js';
import { Client } from '../client.js';
import { contributorKey, publisher, signup, type TestPublisher, type TestUser } from '../factories.js';

const WP_SOURCE = '/usr/share/wordpress';
const PLUGIN = path.resolve('integrations/wordpress/credence');
const HOST = 'wp-e2e.example';
const SECRET = `whsec_${randomBytes(32).toString('hex')}`;
const ADMIN_PASSWORD = `admin-password-${randomBytes(9).toString('hex')}`;

function missing(): string | null {
  try {
    execFileSync('php', ['-r', 'exit(extension_loaded("mysqli") ? 0 : 1);']);
  } catch {
    return 'php-cli with php-mysql (mysqli) is not installed';
  }
  if (!fs.existsSync(path.join(WP_SOURCE, 'wp-settings.php'))) return `Debian's wordpress package is not installed (${WP_SOURCE})`;
  try {
    execFileSync('mysql', ['-h127.0.0.1', '-uroot', '-e', 'select 1'], { stdio: 'ignore' });
  } catch {
    return 'MariaDB is not answering at 127.0.0.1:3306 as root without a password';
  }
  return null;
}

const why = process.env.DATABASE_URL ? 'the PostgreSQL run (the plugin sees only HTTP; it runs once, on SQLite)' : missing();
if (why && process.env.CREDENCE_WORDPRESS_REQUIRED === '1' && !process.env.DATABASE_URL) throw new Error(`WordPress end-to-end test cannot run: ${why}`);
if (why) console.warn(`[wordpress e2e] skipped: ${why}`);

/** A relay to the harness's port that can be cut (connections refused) and restored on the same port. */
async function relay(target: number) {
  const port = await freePort();
  let server: net.Server | null = null;
  const sockets = new Set<net.Socket>();
  const up = () =>
    new Promise<void>((resolve) => {
      server = net.createServer((c) => {
        const u = net.connect(target, '127.0.0.1');
        sockets.add(c).add(u);
        c.pipe(u).pipe(c);
        const end = () => (c.destroy(), u.destroy());
        c.on('error', end).on('close', end);
        u.on('error', end).on('close', end);
      });
      server.listen(port, '127.0.0.1', () => resolve());
    });
  const down = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      sockets.clear();
      if (server) server.close(() => resolve());
      else resolve();
      server = null;
    });
  await up();
  return { port, up, down };
}

interface Lookup {
  data: { id: number; registered: boolean; title: string | null; topic: string | null };
}
const lookupOf = (base: string, url: string): Promise<Lookup> => fetch(`${base}/api/v1/pages/lookup?url=${encodeURIComponent(url)}`).then((r) => r.json() as Promise<Lookup>);

interface Answer {
  status: number;
  text: string;
  cookies: string[];
  json: () => any;
}

describe.skipIf(why !== null)('the WordPress plugin against a real Credence', () => {
  let t: TestApp;
  let pub: TestPublisher;
  let author: TestUser;
  let link: Awaited<ReturnType<typeof relay>>;
  let dir: string;
  let db: string;
  let wpPort: number;
  let php: ChildProcess;
  let phpOut = '';
  let appPassword: string;
  let healthCategory: number;

  /** WordPress, reached at 127.0.0.1 under its public name (the Host header), as a reader's browser would. */
  function wp(method: string, p: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
    const data = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: wpPort, method, path: p, headers: { Host: `${HOST}:${wpPort}`, ...(data ? { 'Content-Type': 'application/json' } : {}), ...headers } }, (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text, cookies: res.headers['set-cookie'] ?? [], json: () => JSON.parse(text) }));
      });
      req.on('error', reject);
      req.end(data);
    });
  }
  const authed = () => ({ Authorization: `Basic ${Buffer.from(`admin:${appPassword}`).toString('base64')}` });

  /** Run PHP inside the WordPress install (after wp-load.php), returning what it prints. Asynchronously: the
   * in-process Credence it may call answers on this event loop. */
  async function wpPhp(code: string, before = ''): Promise<string> {
    const file = path.join(dir, `run-${randomBytes(4).toString('hex')}.php`);
    fs.writeFileSync(file, `<?php\n$_SERVER['HTTP_HOST'] = '${HOST}:${wpPort}';\n${before}\nrequire __DIR__ . '/wp-load.php';\n${code}\n`);
    try {
      return (await promisify(execFile)('php', [file], { cwd: dir, encoding: 'utf8' })).stdout;
    } finally {
      fs.rmSync(file);
    }
  }

  beforeAll(async () => {
    t = await startTestApp();
    pub = await publisher(t, { domain: HOST });
    author = await signup(t);
    link = await relay(Number(new URL(t.baseUrl).port));

    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'credence-wp-'));
    execFileSync('cp', ['-rL', `${WP_SOURCE}/.`, dir]);
    fs.rmSync(path.join(dir, '.htaccess'), { force: true });
    fs.cpSync(PLUGIN, path.join(dir, 'wp-content/plugins/credence'), { recursive: true });
    // Debian ships no theme in the wordpress package: the smallest classic theme that prints head, content and footer.
    const theme = path.join(dir, 'wp-content/themes/plain');
    fs.mkdirSync(theme, { recursive: true });
    fs.writeFileSync(path.join(theme, 'style.css'), '/*\nTheme Name: Plain\n*/\n');
    fs.writeFileSync(path.join(theme, 'index.php'), '<!doctype html><html><head><?php wp_head(); ?></head><body><?php while ( have_posts() ) { the_post(); the_title( "<h1>", "</h1>" ); the_content(); } wp_footer(); ?></body></html>\n');
    fs.writeFileSync(path.join(dir, 'router.php'), "<?php\n$f = __DIR__ . parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH);\nif ($_SERVER['REQUEST_URI'] !== '/' && is_file($f)) { return false; }\nif (is_dir($f) && is_file($f . '/index.php')) { require $f . '/index.php'; return; }\nrequire __DIR__ . '/index.php';\n");

    db = `credence_wp_${randomBytes(4).toString('hex')}`;
    execFileSync('mysql', ['-h127.0.0.1', '-uroot', '-e', `CREATE DATABASE ${db}`]);
    wpPort = await freePort();
    const salts = ['AUTH_KEY', 'SECURE_AUTH_KEY', 'LOGGED_IN_KEY', 'NONCE_KEY', 'AUTH_SALT', 'SECURE_AUTH_SALT', 'LOGGED_IN_SALT', 'NONCE_SALT'].map((k) => `define('${k}', '${randomBytes(24).toString('hex')}');`).join('\n');
    fs.writeFileSync(
      path.join(dir, 'wp-config.php'),
      `<?php
define('DB_NAME', '${db}'); define('DB_USER', 'root'); define('DB_PASSWORD', ''); define('DB_HOST', '127.0.0.1:3306');
define('DB_CHARSET', 'utf8mb4'); define('DB_COLLATE', '');
${salts}
$table_prefix = 'wp_';
define('WP_HOME', 'http://${HOST}:${wpPort}'); define('WP_SITEURL', 'http://${HOST}:${wpPort}');
define('WP_ENVIRONMENT_TYPE', 'local'); define('DISABLE_WP_CRON', true); define('WP_DEBUG', false);
define('WP_CONTENT_DIR', __DIR__ . '/wp-content');
if (!defined('ABSPATH')) define('ABSPATH', __DIR__ . '/');
require_once ABSPATH . 'wp-settings.php';
`,
    );
    const out = await wpPhp(`add_filter('pre_wp_mail', '__return_false');
require_once ABSPATH . 'wp-admin/includes/upgrade.php';
require_once ABSPATH . 'wp-admin/includes/plugin.php';
$r = wp_install('Credence e2e', 'admin', 'admin@wp-e2e.example', true, '', '${ADMIN_PASSWORD}');
switch_theme('plain');
update_option('permalink_structure', '/%postname%/');
$err = activate_plugin('credence/credence.php');
if (is_wp_error($err)) { echo 'ACTIVATE:' . $err->get_error_message(); exit(1); }
update_option('credence_api_key', '${pub.key}');
update_option('credence_service_url', 'http://127.0.0.1:${link.port}');
update_option('credence_webhook_secret', '${SECRET}');
// A real category, mapped as a site owner would: posts in it are about health.
update_option('credence_topic_map', array('category:health' => 'health'));
$health = wp_insert_term('Health', 'category', array('slug' => 'health'));
[$password] = WP_Application_Passwords::create_new_application_password($r['user_id'], array('name' => 'e2e'));
echo wp_json_encode(array('password' => $password, 'connection' => get_option('credence_connection'), 'health' => $health['term_id']));`, "define('WP_INSTALLING', true);");
    expect(out).toContain('{');
    const installed = JSON.parse(out.slice(out.indexOf('{')));
    appPassword = installed.password;
    healthCategory = installed.health;
    // Saving the key asked Credence who it is (whoami), and said so in words.
    expect(installed.connection).toEqual({ ok: true, message: expect.stringContaining(`Connected to Credence as The ${pub.slug}`) });

    // PHP_CLI_SERVER_WORKERS forks workers that outlive a killed parent: the server gets a process group of its own
    // (detached), and stopping it kills the group, here or when this worker exits however the run ends.
    php = spawn('php', ['-S', `127.0.0.1:${wpPort}`, '-t', dir, path.join(dir, 'router.php')], { cwd: dir, env: { ...process.env, PHP_CLI_SERVER_WORKERS: '4' }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    process.once('exit', killPhp);
    php.stdout!.on('data', (d: Buffer) => (phpOut += d.toString()));
    php.stderr!.on('data', (d: Buffer) => (phpOut += d.toString()));
    for (let i = 0; i < 100; i++) {
      if (await wp('GET', '/wp-json/').then((r) => r.status === 200, () => false)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  }, 120_000);

  /** Kill the PHP server's whole process group (it and its workers), once. Synchronous, for the `exit` handler. */
  function killPhp(): void {
    process.removeListener('exit', killPhp);
    if (php?.pid === undefined || php.exitCode !== null || php.signalCode !== null) return;
    try {
      process.kill(-php.pid, 'SIGKILL');
    } catch {
      // The group is gone already.
    }
  }

  // Each step runs even when one before it throws (or beforeAll failed half-way): nothing this file started is left.
  afterAll(async () => {
    const steps: (() => unknown)[] = [
      async () => {
        if (php?.pid === undefined) return;
        const exited = php.exitCode !== null || php.signalCode !== null ? Promise.resolve() : new Promise((r) => php.once('exit', r));
        killPhp();
        await exited;
      },
      () => db && execFileSync('mysql', ['-h127.0.0.1', '-uroot', '-e', `DROP DATABASE IF EXISTS ${db}`]),
      () => dir && fs.rmSync(dir, { recursive: true, force: true }),
      () => link?.down(),
      () => t?.close(),
    ];
    const failed = [];
    for (const step of steps) {
      try {
        await step();
      } catch (err) {
        failed.push(err);
      }
    }
    if (failed.length > 0) throw failed[0];
  });

  let postUrl: string;
  let pageId: number;

  /** Save a user's profile with a Credence username, through the plugin's own profile handler (nonce included). */
  async function saveProfile(userId: number, username: string): Promise<void> {
    await wpPhp(`require_once ABSPATH . 'wp-admin/includes/admin.php'; wp_set_current_user(${userId});
$_POST['credence_profile_nonce'] = wp_create_nonce('credence_profile'); $_POST['credence_username'] = '${username}';
Credence_Admin::save_profile(${userId});`);
  }
  /** The profile's Credence field as the user sees it (showing it reads the link's answer from Credence). */
  const profileField = (userId: number) =>
    wpPhp(`require_once ABSPATH . 'wp-admin/includes/admin.php'; wp_set_current_user(${userId}); Credence_Admin::profile_field(get_userdata(${userId}));`);
  const linkState = (html: string) => /class="description credence-link" data-state="([a-z]+)"/.exec(html)?.[1];
  const runCron = async () => {
    await wpPhp("wp_unschedule_hook('credence_retry_queue'); wp_schedule_event(time() - 1, 'credence_five_minutes', 'credence_retry_queue');");
    expect((await wp('GET', '/wp-cron.php')).status).toBe(200);
  };
  const claimsOn = async (url: string) => {
    const id = (await lookupOf(t.baseUrl, url)).data.id;
    return (await pub.api.get(`/api/v1/publisher-auth/claims?page_id=${id}`)).body.data as { username: string; state: string }[];
  };

  it('a username typed into a profile only asks that person; posts name them only once they confirm in Credence', async () => {
    await saveProfile(1, author.username);
    expect(linkState(await profileField(1))).toBe('pending');
    // The person sees which publication asks, for which site and which WordPress name.
    const asked = await author.client.get('/api/v1/account/author-links?state=pending');
    expect(asked.body.data).toEqual([
      expect.objectContaining({ publisher: { slug: pub.slug, name: `The ${pub.slug}` }, site: `http://${HOST}:${wpPort}`, user_id: '1', display_name: 'admin', state: 'pending' }),
    ]);
    const before = await wp('POST', '/wp-json/wp/v2/posts', { title: 'Before the link', content: '<p>Early.</p>', status: 'publish' }, authed());
    expect(before.status, before.text + phpOut).toBe(201);
    const beforeUrl: string = before.json().link;
    expect((await lookupOf(t.baseUrl, beforeUrl)).data.registered).toBe(true);
    expect(await claimsOn(beforeUrl)).toEqual([]);

    // Another WordPress user types the same username: the person declines, and that user's posts name nobody.
    const mallory = Number(await wpPhp("echo wp_insert_user(array('user_login' => 'mallory', 'user_pass' => wp_generate_password(20), 'role' => 'author', 'display_name' => 'Mallory'));"));
    expect(mallory).toBeGreaterThan(1);
    await saveProfile(mallory, author.username);
    const theirs = (await author.client.get('/api/v1/account/author-links?state=pending')).body.data.find((l: { user_id: string }) => l.user_id === String(mallory));
    expect(theirs).toMatchObject({ display_name: 'Mallory', site: `http://${HOST}:${wpPort}` });
    expect((await author.client.post(`/api/v1/account/author-links/${theirs.id}/decline`)).status).toBe(200);
    expect(linkState(await profileField(mallory))).toBe('declined');
    const forged = await wpPhp(`echo get_permalink(wp_insert_post(array('post_author' => ${mallory}, 'post_title' => 'Written by someone else', 'post_content' => 'Not theirs.', 'post_status' => 'publish')));`);
    expect((await lookupOf(t.baseUrl, forged)).data.registered).toBe(true);
    expect(await claimsOn(forged)).toEqual([]);

    // The person confirms the link that is theirs; the plugin reads it (WP-Cron) and sends the earlier post again.
    const mine = (await author.client.get('/api/v1/account/author-links?state=pending')).body.data.find((l: { user_id: string }) => l.user_id === '1');
    expect((await author.client.post(`/api/v1/account/author-links/${mine.id}/confirm`)).status).toBe(200);
    await runCron();
    expect(linkState(await profileField(1))).toBe('confirmed');
    expect(await claimsOn(beforeUrl)).toEqual([expect.objectContaining({ username: author.username, state: 'pending' })]);
    const claim = (await author.client.get('/api/v1/account/claims?state=pending')).body.data[0];
    expect((await author.client.post(`/api/v1/account/claims/${claim.id}/confirm`)).status).toBe(200);
  });

  it('publishing a post registers it in Credence with its author as a claim, and its mapped category as the topic', async () => {
    // As the block editor does: post-new.php makes a draft, and Publish sends one REST request with the title, the
    // content, the status and the categories. WordPress's REST controller publishes the post (wp_insert_post) before
    // it saves the request's terms, so registering as the status changes sent no topic.
    const draft = await wp('POST', '/wp-json/wp/v2/posts', { title: 'Auto Draft', status: 'draft' }, authed());
    expect(draft.status, draft.text + phpOut).toBe(201);
    const res = await wp('POST', `/wp-json/wp/v2/posts/${draft.json().id}`, { title: 'Measles cases rise', content: '<p>Cases rose in <b>three</b> counties.</p>', status: 'publish', categories: [healthCategory] }, authed());
    expect(res.status, res.text + phpOut).toBe(200);
    expect(res.json().categories).toEqual([healthCategory]);
    postUrl = res.json().link;
    expect(postUrl).toBe(`http://${HOST}:${wpPort}/measles-cases-rise/`);
    const lookup = await lookupOf(t.baseUrl, postUrl);
    expect(lookup.data).toMatchObject({ registered: true, title: 'Measles cases rise', topic: 'health' });
    pageId = lookup.data.id;
    const claims = await pub.api.get(`/api/v1/publisher-auth/claims?page_id=${pageId}`);
    expect(claims.body.data).toEqual([expect.objectContaining({ username: author.username, state: 'pending' })]);
  });

  it('the author confirms; the post shows the embed and the record’s JSON-LD', async () => {
    const mine = await author.client.get('/api/v1/account/claims?state=pending');
    const claim = (mine.body.data as { id: number }[])[0]!;
    expect((await author.client.post(`/api/v1/account/claims/${claim.id}/confirm`)).status).toBe(200);
    await t.runtime.deps.changes.committed();
    const page = await wp('GET', new URL(postUrl).pathname);
    expect(page.status).toBe(200);
    expect(page.text).toContain('class="credence-embed"');
    expect(page.text).toContain(author.username);
    const ld = /<script type="application\/ld\+json">(.*?)<\/script>/s.exec(page.text);
    expect(ld, page.text.slice(0, 2000)).not.toBeNull();
    expect(JSON.stringify(JSON.parse(ld![1]!))).toContain('Measles cases rise');
    // The embed arrives as the service wrote it: its stylesheet linked, its dates as <time> elements.
    const embed = /<div class="credence-embed">(.*?)<\/div>/s.exec(page.text)![1]!;
    expect(embed).toMatch(/^<link rel="stylesheet" href="[^"]+\/embed\.css\?v=[\w-]+">/);
    expect(embed).toMatch(/<time datetime="\d{4}-\d{2}-\d{2}">[^<]+<\/time>/);
    expect(embed).toContain('class="credence credence--full"');
    // The editor's Credence box says who confirmed; the work page offers a request form of its own.
    const postId = Number(/wp-json\/wp\/v2\/posts\/(\d+)/.exec(page.text)?.[1] ?? (await wp('GET', `/wp-json/wp/v2/posts?slug=measles-cases-rise`)).json()[0].id);
    const box = await wpPhp(`require_once ABSPATH . 'wp-admin/includes/admin.php'; wp_set_current_user(1); Credence_Admin::meta_box(get_post(${postId})); $_GET['post'] = ${postId}; Credence_Admin::work_page();`);
    expect(box).toContain(`<li data-state="confirmed">${author.username}: confirmed</li>`);
    expect(box).toContain('name="request_type"');
    expect(box).toContain('No submitted work is waiting for a decision.');
  });

  it('[credence style="compact"] shows the compact block, cached apart from the full one', async () => {
    const id = (await wp('GET', '/wp-json/wp/v2/posts?slug=measles-cases-rise')).json()[0].id as number;
    // The full block of this post is cached already (the page was shown above).
    const res = await wp('POST', `/wp-json/wp/v2/posts/${id}`, { content: '<p>Cases rose in <b>three</b> counties.</p>\n[credence style="compact"]' }, authed());
    expect(res.status, res.text).toBe(200);
    const page = await wp('GET', new URL(postUrl).pathname);
    expect(page.text).toContain('class="credence credence--compact"');
    expect(page.text).not.toContain('credence--full');
    expect(page.text).toMatch(/<div class="credence-embed"><link rel="stylesheet" href="[^"]+\/embed\.css\?v=[\w-]+"><p class="credence credence--compact"/);
    // An unknown style is the full block, not a request Credence refuses.
    await wp('POST', `/wp-json/wp/v2/posts/${id}`, { content: '<p>Cases rose in <b>three</b> counties.</p>\n[credence style="huge"]' }, authed());
    expect((await wp('GET', new URL(postUrl).pathname)).text).toContain('class="credence credence--full"');
  });

  it('a signed webhook is accepted once: a replay is refused, Credence’s own retry acknowledged and not acted on; a forged or stale one refused', async () => {
    const id = 1_000 + Math.floor(Math.random() * 1_000_000);
    const body = JSON.stringify({ id, event: 'page.registered', created: new Date().toISOString(), data: { page: { id: pageId, url: postUrl, title: 'Measles cases rise', record_url: 'https://credence.test/records/1' } } });
    const sign = (ts: string, key = SECRET) => `sha256=${createHmac('sha256', key).update(`${ts}.${body}`).digest('hex')}`;
    const now = String(Math.floor(Date.now() / 1000));
    const headers = { 'X-Service-Timestamp': now, 'X-Service-Signature': sign(now), 'X-Service-Event': 'page.registered', 'X-Service-Delivery': String(id) };
    const ok = await wp('POST', '/wp-json/credence/v1/webhook', body, headers);
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json().post).toBeGreaterThan(0);
    // The same signed request again, twice at once: both refused, the post's caches not cleared again.
    await wpPhp(`delete_post_meta(${ok.json().post}, '_credence_last_event');`);
    const replays = await Promise.all([1, 2].map(() => wp('POST', '/wp-json/credence/v1/webhook', body, { ...headers, 'X-Service-Delivery': String(id + 1) })));
    for (const replay of replays) {
      expect(replay.status, replay.text).toBe(409);
      expect(replay.json().code).toBe('credence_replayed_delivery');
    }
    expect(await wpPhp(`echo wp_json_encode(get_post_meta(${ok.json().post}, '_credence_last_event', true));`)).toBe('""');
    // Credence sending the delivery again (its answer lost) signs it anew: acknowledged, so it stops, and not acted on.
    const later = String(Number(now) + 30);
    const retry = await wp('POST', '/wp-json/credence/v1/webhook', body, { ...headers, 'X-Service-Timestamp': later, 'X-Service-Signature': sign(later) });
    expect(retry.status, retry.text).toBe(200);
    expect(retry.json()).toMatchObject({ received: true, duplicate: true, post: 0 });
    const forged = await wp('POST', '/wp-json/credence/v1/webhook', body, { 'X-Service-Timestamp': now, 'X-Service-Signature': sign(now, 'whsec_guess') });
    expect(forged.status).toBe(401);
    const old = String(Math.floor(Date.now() / 1000) - 600);
    const stale = await wp('POST', '/wp-json/credence/v1/webhook', body, { 'X-Service-Timestamp': old, 'X-Service-Signature': sign(old) });
    expect(stale.status).toBe(401);
    expect(stale.json().message).toContain('five minutes');
  });

  it('with Credence down a post still publishes and is shown; WP-Cron registers it once Credence is back', async () => {
    await link.down();
    const res = await wp('POST', '/wp-json/wp/v2/posts', { title: 'Flu season starts', content: '<p>Early.</p>', status: 'publish' }, authed());
    expect(res.status, res.text).toBe(201);
    const url: string = res.json().link;
    const page = await wp('GET', new URL(url).pathname);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Flu season starts');
    expect(page.text).toContain('/api/v1/embed/by-url?'); // the embed's own script, fetched by the reader's browser
    await link.up();
    const before = await lookupOf(t.baseUrl, url);
    expect(before.data.registered).toBe(false);
    // Five minutes pass: the retry is due; WP-Cron runs it when wp-cron.php is requested, as a system cron would.
    await wpPhp("wp_unschedule_hook('credence_retry_queue'); wp_schedule_event(time() - 1, 'credence_five_minutes', 'credence_retry_queue');");
    const cron = await wp('GET', '/wp-cron.php');
    expect(cron.status).toBe(200);
    const after = await lookupOf(t.baseUrl, url);
    expect(after.data).toMatchObject({ registered: true, title: 'Flu season starts' });
    expect(JSON.parse(await wpPhp("echo wp_json_encode(get_option('credence_queue'));"))).toEqual([]);
  });

  it('a category set in a later update is the topic sent with it', async () => {
    const res = await wp('POST', '/wp-json/wp/v2/posts', { title: 'Clinics open late', content: '<p>Open till nine.</p>', status: 'publish' }, authed());
    expect(res.status, res.text).toBe(201);
    const url: string = res.json().link;
    expect((await lookupOf(t.baseUrl, url)).data).toMatchObject({ registered: true, topic: '' });
    const update = await wp('POST', `/wp-json/wp/v2/posts/${res.json().id}`, { categories: [healthCategory] }, authed());
    expect(update.status, update.text).toBe(200);
    expect((await lookupOf(t.baseUrl, url)).data.topic).toBe('health');
  });

  it('Posts → Credence work shows the Accept button only to those who decide, and a writer only the work on their posts', async () => {
    const writer = Number(await wpPhp("echo wp_insert_user(array('user_login' => 'writer', 'user_pass' => wp_generate_password(20), 'role' => 'author', 'display_name' => 'Writer'));"));
    expect(writer).toBeGreaterThan(1);
    const theirs = await wpPhp(`echo get_permalink(wp_insert_post(array('post_author' => ${writer}, 'post_title' => 'A writer’s own post', 'post_content' => 'Mine.', 'post_status' => 'publish')));`);
    const reviewer = new Client(t.baseUrl).as(await contributorKey(await signup(t)));
    for (const url of [postUrl, theirs]) {
      const sub = await reviewer.post('/api/v1/submissions', { url, role: 'review', summary: `A careful review of ${url}`, evidence: { reason: 'Read it twice.', sources: ['https://archive.example/r'] } });
      expect(sub.status, sub.text).toBe(201);
    }
    const workPage = (user: number, post = 0) => wpPhp(`require_once ABSPATH . 'wp-admin/includes/admin.php'; wp_set_current_user(${user}); ${post ? `$_GET['post'] = ${post};` : ''} Credence_Admin::work_page();`);
    const admin = await workPage(1);
    expect(admin.match(/name="decision" value="accept"/g)).toHaveLength(2);
    const own = await workPage(writer);
    expect(own).toContain(`A careful review of ${theirs}`);
    expect(own).not.toContain(`A careful review of ${postUrl}`);
    expect(own).not.toContain('name="decision"');
    expect(own).toContain('An editor decides on submitted work.');
    const measles = (await wp('GET', '/wp-json/wp/v2/posts?slug=measles-cases-rise')).json()[0].id as number;
    const other = await workPage(writer, measles);
    expect(other).toContain('You cannot see the work on this post.');
    expect(other).not.toContain('A careful review');
  });

  it('Settings → Credence tests the key on every save: a key Credence refuses is not saved, and the form says why', async () => {
    // Logged in through wp-login.php, saving the settings form through options.php, as a site owner does.
    const login = await wp('POST', '/wp-login.php', new URLSearchParams({ log: 'admin', pwd: ADMIN_PASSWORD, testcookie: '1', redirect_to: '/wp-admin/' }).toString(), {
      'Content-Type': 'application/x-www-form-urlencoded',
      Cookie: 'wordpress_test_cookie=WP%20Cookie%20check',
    });
    expect(login.status, login.text.slice(0, 500)).toBe(302);
    const cookie = [...login.cookies.map((c) => c.split(';')[0]), 'wordpress_test_cookie=WP%20Cookie%20check'].join('; ');
    const save = async (key: string) => {
      const form = await wp('GET', '/wp-admin/options-general.php?page=credence', undefined, { Cookie: cookie });
      expect(form.status).toBe(200);
      const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(form.text)![1]!;
      const body = new URLSearchParams({ option_page: 'credence', action: 'update', _wpnonce: field('_wpnonce'), _wp_http_referer: '/wp-admin/options-general.php?page=credence', credence_service_url: `http://127.0.0.1:${link.port}`, credence_api_key: key, credence_webhook_secret: SECRET, 'credence_post_types[]': 'post', credence_topic_map: 'category:health = health', credence_auto_embed: '1' });
      const saved = await wp('POST', '/wp-admin/options.php', body.toString(), { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookie });
      expect(saved.status, saved.text.slice(0, 500)).toBe(302);
      return (await wp('GET', '/wp-admin/options-general.php?page=credence&settings-updated=true', undefined, { Cookie: cookie })).text;
    };
    const option = async (name: string) => JSON.parse(await wpPhp(`echo wp_json_encode(get_option('${name}'));`));

    const refused = await save('cred_wrong_key_0000000000000000');
    expect(refused).toContain('Credence refused the API key');
    expect(refused).toContain('The key was not saved.');
    expect(await option('credence_api_key')).toBe(pub.key);
    expect(await option('credence_connection')).toMatchObject({ ok: true });

    // The same key saved again is tested again: a status gone stale is put right.
    await wpPhp(`update_option('credence_connection', array('ok' => false, 'message' => 'stale'), false);`);
    const again = await save(pub.key);
    expect(again).toContain(`Connected to Credence as The ${pub.slug}`);
    expect(again).not.toContain('stale');
    expect(await option('credence_connection')).toMatchObject({ ok: true });
  });
});
