// A secret shown once after a redirect (Post/Redirect/Get): a form that creates a key or a signing secret answers
// 303 to its page, and the page shows the secret on the first GET only. The secret rides in a short-lived cookie,
// sealed (AES-256-GCM) under a key derived from the session token: only the browser holding this session can have
// it opened, and that session can make keys anyway. The first GET that opens it clears it, so a reload shows
// nothing and makes nothing. Nothing is stored server-side, so it works across processes (--workers).
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { parseCookies, setCookie } from './session.js';

export const FLASH_COOKIE = 'credence_flash';
/** Long enough for the redirect to be followed, short enough that a forgotten one is gone. */
const FLASH_SECONDS = 120;

export interface Flash {
  /** The page the secret is for: another page leaves it unopened. */
  path: string;
  name: string;
  secret: string;
}

const keyOf = (sessionToken: string) => createHash('sha256').update(`credence flash\0${sessionToken}`).digest();

/** Seal a secret for the page the answer redirects to. */
export function setFlash(req: FastifyRequest, reply: FastifyReply, sessionToken: string, flash: Flash): void {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(sessionToken), iv);
  const sealed = Buffer.concat([cipher.update(JSON.stringify(flash), 'utf8'), cipher.final()]);
  const value = [iv, cipher.getAuthTag(), sealed].map((b) => b.toString('base64url')).join('.');
  setCookie(req, reply, FLASH_COOKIE, value, FLASH_SECONDS);
}

/** The secret sealed for this page by this session, once: the cookie is cleared as it is read. */
export function takeFlash(req: FastifyRequest, reply: FastifyReply, sessionToken: string): Flash | undefined {
  const value = parseCookies(req.headers.cookie)[FLASH_COOKIE];
  if (!value) return undefined;
  const path = req.url.split('?')[0];
  const [iv, tag, sealed] = value.split('.').map((p) => Buffer.from(p, 'base64url'));
  let flash: Flash | undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyOf(sessionToken), iv!);
    decipher.setAuthTag(tag!);
    flash = JSON.parse(Buffer.concat([decipher.update(sealed!), decipher.final()]).toString('utf8')) as Flash;
  } catch {
    // Another session's, or tampered with: dropped.
    setCookie(req, reply, FLASH_COOKIE, '', 0);
    return undefined;
  }
  if (flash.path !== path) return undefined;
  setCookie(req, reply, FLASH_COOKIE, '', 0);
  return flash;
}
