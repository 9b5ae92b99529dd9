// A real webhook receiver for tests: an HTTP server on 127.0.0.1 that records every request and checks every
// signature itself, with node:crypto and nothing from the app, in both schemes of SPEC §10. Each path is one
// endpoint: the test tells the receiver the path's secrets and how to answer.
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  method: string;
  headers: http.IncomingHttpHeaders;
  /** The raw bytes, as signed. */
  raw: Buffer;
  json: any;
  /** performance.timeOrigin + performance.now() when the body had arrived, in ms. */
  at: number;
  format: 'v1' | 'api_v1' | 'unsigned';
  event: string | undefined;
  /** `evt_<id>` on /v1, the integer as text on /api/v1. */
  delivery: string | undefined;
  timestamp: number | undefined;
  /** Every sha256= value of the signature header. */
  signatures: string[];
  /** Which of the path's secrets signed it (by position), empty when none did. */
  signedBy: number[];
  verified: boolean;
}

export interface Answer {
  status?: number;
  body?: string;
  headers?: Record<string, string>;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Destroy the connection instead of answering. */
  hangUp?: boolean;
}

type Responder = (r: Received) => Answer | Promise<Answer>;

const hmac = (secret: string, t: string, raw: Buffer) => createHmac('sha256', secret).update(`${t}.`).update(raw).digest();

export class WebhookReceiver {
  readonly requests: Received[] = [];
  private readonly secrets = new Map<string, string[]>();
  private readonly responders = new Map<string, Responder>();
  private waiters: (() => void)[] = [];
  /** Requests being answered right now, per path: a test of "never sent twice at once". */
  readonly inFlight = new Map<string, number>();
  maxInFlight = new Map<string, number>();

  private constructor(
    private readonly server: http.Server,
    readonly port: number,
  ) {}

  static async start(): Promise<WebhookReceiver> {
    let self: WebhookReceiver | null = null;
    const server = http.createServer((req, res) => void self!.handle(req, res));
    server.keepAliveTimeout = 1000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    self = new WebhookReceiver(server, (server.address() as AddressInfo).port);
    return self;
  }

  url(path: string, host = '127.0.0.1'): string {
    return `http://${host}:${this.port}${path}`;
  }

  /** The secrets a path's signatures are checked with (after a rotation, both). */
  trust(path: string, ...secrets: string[]): void {
    this.secrets.set(path, secrets);
  }

  answer(path: string, responder: Responder | Answer): void {
    this.responders.set(path, typeof responder === 'function' ? responder : () => responder);
  }

  at(path: string): Received[] {
    return this.requests.filter((r) => r.path === path);
  }

  /** Wait until `done()` holds, re-checked at every request. */
  async waitFor(done: () => boolean, timeoutMs = 10_000, what = 'the expected deliveries'): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}; ${this.requests.length} requests received`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 200));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]!;
    this.inFlight.set(path, (this.inFlight.get(path) ?? 0) + 1);
    this.maxInFlight.set(path, Math.max(this.maxInFlight.get(path) ?? 0, this.inFlight.get(path)!));
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const raw = Buffer.concat(chunks);
      const received = this.check(path, req, raw);
      this.requests.push(received);
      for (const w of this.waiters.splice(0)) w();
      const responder: Responder = this.responders.get(path) ?? (() => ({ status: 200, body: 'ok' }));
      const answer = await responder(received);
      if (answer.delayMs) await new Promise((r) => setTimeout(r, answer.delayMs));
      if (answer.hangUp) {
        req.socket.destroy();
        return;
      }
      res.writeHead(answer.status ?? 200, { 'content-type': 'text/plain', ...answer.headers });
      res.end(answer.body ?? '');
    } finally {
      this.inFlight.set(path, this.inFlight.get(path)! - 1);
    }
  }

  private check(path: string, req: http.IncomingMessage, raw: Buffer): Received {
    const h = req.headers;
    const secrets = this.secrets.get(path) ?? [];
    let format: Received['format'] = 'unsigned';
    let timestamp: string | undefined;
    let signatures: string[] = [];
    if (typeof h['service-signature'] === 'string') {
      format = 'v1';
      const parts = h['service-signature'].split(',');
      timestamp = parts.find((p) => p.startsWith('t='))?.slice(2);
      signatures = parts.filter((p) => p.startsWith('sha256=')).map((p) => p.slice(7));
    } else if (typeof h['x-service-signature'] === 'string') {
      format = 'api_v1';
      timestamp = h['x-service-timestamp'] as string | undefined;
      // As the /api/v1 document reads: each header is exactly `sha256=<hex>`; anything else verifies nothing. The
      // current secret's signature, then (for 24 h after a rotation) the previous secret's, docs/webhooks.md.
      signatures = [h['x-service-signature'], h['x-service-signature-previous']]
        .filter((v): v is string => typeof v === 'string')
        .map((v) => (/^sha256=[0-9a-f]{64}$/.test(v) ? v.slice(7) : ''));
    }
    const signedBy: number[] = [];
    if (timestamp !== undefined) {
      secrets.forEach((secret, i) => {
        const expected = hmac(secret, timestamp!, raw);
        const ok = signatures.some((s) => {
          const given = Buffer.from(s, 'hex');
          return given.length === expected.length && timingSafeEqual(given, expected);
        });
        if (ok) signedBy.push(i);
      });
    }
    let json: unknown;
    try {
      json = JSON.parse(raw.toString('utf8'));
    } catch {
      json = undefined;
    }
    return {
      path,
      method: req.method ?? '',
      headers: h,
      raw,
      json,
      at: performance.timeOrigin + performance.now(),
      format,
      event: (format === 'v1' ? h['service-event'] : h['x-service-event']) as string | undefined,
      delivery: (format === 'v1' ? h['service-delivery'] : h['x-service-delivery']) as string | undefined,
      timestamp: timestamp === undefined ? undefined : Number(timestamp),
      signatures,
      signedBy,
      verified: signedBy.length > 0,
    };
  }
}
