// The web pages' session: the same session token as the API (SPEC §5), carried in an HttpOnly, SameSite=Lax
// cookie (Secure under HTTPS). Resolved once per page request into `req.webUser`.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { findLiveSession } from '../../domain/accounts/account.service.js';
import { findAccountById } from '../../domain/accounts/account.store.js';
import { SESSION_DAYS } from '../../domain/accounts/rules.js';
import type { Deps } from '../../domain/deps.js';
import { listMemberships } from '../../domain/publishers/publisher.store.js';
import { SESSION_COOKIE } from '../../http/security-headers.js';

export { SESSION_COOKIE };

export interface WebUser {
  accountId: number;
  sessionId: number;
  token: string;
  username: string;
  name: string;
  isAdmin: boolean;
  publishers: { id: number; slug: string; name: string; role: string }[];
}

declare module 'fastify' {
  interface FastifyRequest {
    webUser: WebUser | null;
  }
}

export function parseCookies(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i < 1) continue;
    const name = part.slice(0, i).trim();
    try {
      out[name] = decodeURIComponent(part.slice(i + 1).trim());
    } catch {
      // A malformed cookie is ignored, as if absent.
    }
  }
  return out;
}

export function setCookie(req: FastifyRequest, reply: FastifyReply, name: string, value: string, maxAgeSeconds: number): void {
  const secure = req.protocol === 'https' ? '; Secure' : '';
  const cookie = `${name}=${encodeURIComponent(value)}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure}`;
  const existing = reply.getHeader('set-cookie');
  const list = Array.isArray(existing) ? existing : existing ? [String(existing)] : [];
  void reply.header('set-cookie', [...list, cookie]);
}

export const startWebSession = (req: FastifyRequest, reply: FastifyReply, token: string) =>
  setCookie(req, reply, SESSION_COOKIE, token, SESSION_DAYS * 86_400);

export const endWebSession = (req: FastifyRequest, reply: FastifyReply) => setCookie(req, reply, SESSION_COOKIE, '', 0);

export async function resolveWebUser(deps: Deps, req: FastifyRequest): Promise<void> {
  req.webUser = null;
  const token = parseCookies(req.headers.cookie)[SESSION_COOKIE];
  if (!token) return;
  const session = await findLiveSession(deps, token);
  if (!session) return;
  const account = await findAccountById(deps.db, session.account_id);
  if (!account) return;
  const publishers = await listMemberships(deps.db, account.id);
  req.webUser = {
    accountId: account.id,
    sessionId: session.id,
    token,
    username: account.username,
    name: account.name,
    isAdmin: account.is_admin === 1,
    publishers: publishers.map((p) => ({ id: p.id, slug: p.slug, name: p.name, role: p.role })),
  };
}
