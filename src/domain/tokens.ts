// Secrets the service hands out once and keeps only as a SHA-256 hash (API keys, session tokens).
import { createHash, randomBytes } from 'node:crypto';

export const API_KEY_PREFIX = 'cred_live_';
export const SESSION_PREFIX = 'cred_sess_';
export const API_KEY_PATTERN = /^cred_live_[0-9a-f]{64}$/;

export const sha256 = (value: string): string => createHash('sha256').update(value).digest('hex');

export function newApiKey(): string {
  return API_KEY_PREFIX + randomBytes(32).toString('hex');
}

export function newSessionToken(): string {
  return SESSION_PREFIX + randomBytes(32).toString('base64url');
}

export function randomToken(bytes = 16): string {
  return randomBytes(bytes).toString('hex');
}
