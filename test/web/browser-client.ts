// A cookie-keeping HTTP client that behaves like a browser submitting forms: it keeps cookies, reads the CSRF
// field out of the page it is on, and posts url-encoded forms. For server-rendered page tests without Chromium.
export class FormClient {
  private cookies = new Map<string, string>();
  lastHtml = '';

  constructor(readonly baseUrl: string) {}

  private cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private keep(res: Response): void {
    for (const c of res.headers.getSetCookie()) {
      const [pair, ...attrs] = c.split(';');
      const [name, value] = [pair!.slice(0, pair!.indexOf('=')), pair!.slice(pair!.indexOf('=') + 1)];
      if (attrs.some((a) => a.trim().toLowerCase() === 'max-age=0')) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  cookie(name: string): string | undefined {
    return this.cookies.get(name);
  }

  async get(path: string, headers: Record<string, string> = {}) {
    const res = await fetch(this.baseUrl + path, { headers: { accept: 'text/html', cookie: this.cookieHeader(), ...headers }, redirect: 'manual' });
    this.keep(res);
    const text = await res.text();
    if (res.headers.get('content-type')?.includes('text/html')) this.lastHtml = text;
    return { status: res.status, headers: res.headers, text };
  }

  /** The CSRF token of the last page's forms. */
  csrf(): string {
    const m = /name="_csrf" value="([^"]+)"/.exec(this.lastHtml);
    if (!m?.[1]) throw new Error('no CSRF field on the last page');
    return m[1];
  }

  async post(path: string, fields: Record<string, string | string[]>, opts: { csrf?: string | null; headers?: Record<string, string> } = {}) {
    const form = new URLSearchParams();
    const token = opts.csrf === undefined ? this.csrf() : opts.csrf;
    if (token !== null) form.append('_csrf', token);
    for (const [k, v] of Object.entries(fields)) for (const one of [v].flat()) form.append(k, one);
    const res = await fetch(this.baseUrl + path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: this.cookieHeader(), origin: this.baseUrl, accept: 'text/html', ...opts.headers },
      body: form.toString(),
      redirect: 'manual',
    });
    this.keep(res);
    const text = await res.text();
    if (res.headers.get('content-type')?.includes('text/html')) this.lastHtml = text;
    return { status: res.status, headers: res.headers, text, location: res.headers.get('location') };
  }

  /** A form post answered with 303, then the GET it sends the browser to (Post/Redirect/Get): that page's answer. */
  async postFollow(path: string, fields: Record<string, string | string[]>) {
    const posted = await this.post(path, fields);
    if (posted.status !== 303 || !posted.location) throw new Error(`expected 303 from POST ${path}, got ${posted.status}: ${posted.text.slice(0, 300)}`);
    const page = await this.get(posted.location.replace(/#.*$/, ''));
    return { ...page, posted };
  }
}
