// A real HTTP client for tests: fetch against the listening app, JSON in and out, a simulated caller address.
import { randomInt } from 'node:crypto';

export interface Res<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface ReqOptions {
  body?: unknown;
  /** Sent as is (for malformed JSON and the like). */
  raw?: string | Buffer;
  token?: string | null;
  /** Send the credential as X-API-Key instead of Authorization: Bearer. */
  asHeader?: 'bearer' | 'x-api-key';
  headers?: Record<string, string>;
}

export const randomIp = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

export class Client {
  constructor(
    readonly baseUrl: string,
    readonly ip: string = randomIp(),
    readonly token: string | null = null,
  ) {}

  as(token: string | null): Client {
    return new Client(this.baseUrl, this.ip, token);
  }

  from(ip: string): Client {
    return new Client(this.baseUrl, ip, this.token);
  }

  async req<T = any>(method: string, path: string, opts: ReqOptions = {}): Promise<Res<T>> {
    const headers: Record<string, string> = { 'x-forwarded-for': this.ip, ...opts.headers };
    const token = opts.token === undefined ? this.token : opts.token;
    if (token) {
      if (opts.asHeader === 'x-api-key') headers['x-api-key'] = token;
      else headers.authorization = `Bearer ${token}`;
    }
    let body: string | Buffer | undefined;
    if (opts.raw !== undefined) {
      body = opts.raw;
      headers['content-type'] ??= 'application/json';
    } else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] = 'application/json';
    }
    const res = await fetch(this.baseUrl + path, { method, headers, body, redirect: 'manual' });
    const text = await res.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }

  get<T = any>(path: string, opts?: ReqOptions) {
    return this.req<T>('GET', path, opts);
  }
  post<T = any>(path: string, body?: unknown, opts?: ReqOptions) {
    return this.req<T>('POST', path, { ...opts, body });
  }
  patch<T = any>(path: string, body?: unknown, opts?: ReqOptions) {
    return this.req<T>('PATCH', path, { ...opts, body });
  }
  delete<T = any>(path: string, opts?: ReqOptions) {
    return this.req<T>('DELETE', path, opts);
  }
}
