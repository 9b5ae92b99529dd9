// The signature of a delivery (SPEC §10): hex HMAC-SHA256, keyed with the whole secret (`whsec_…`), over
// "<unix seconds>.<raw body>", the exact bytes sent. During a rotation both secrets sign, each surface as its
// document reads: /v1's `Service-Signature` is a list by SPEC (`t=…,sha256=<new>,sha256=<old>`, as
// Stripe's `v1=`), but /api/v1's `X-Service-Signature` is documented as one `sha256=<hex>`, so it carries the
// current secret's alone and the previous secret's goes in `X-Service-Signature-Previous` (docs/decisions/webhook-signatures.md).
import { createHmac, randomBytes } from 'node:crypto';
import type { WebhookFormat } from './events.js';

export const SECRET_PREFIX = 'whsec_';

export const newWebhookSecret = (): string => SECRET_PREFIX + randomBytes(32).toString('hex');

export function signatureHex(secret: string, timestamp: number, body: Buffer): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
}

/** The signing headers of one attempt, in the scheme of the endpoint's format (a person's own: /api/v1's). */
export function signedHeaders(
  format: WebhookFormat,
  /** The current secret first, then the previous one during its overlap. */
  e: { eventId: number; eventType: string; timestamp: number; body: Buffer; secrets: string[]; replay?: boolean },
): Record<string, string> {
  // A replay the owner asked for: the same event id, so a receiver that kept it can drop it.
  const replay: Record<string, string> = e.replay ? { [format === 'v1' ? 'Service-Replay' : 'X-Service-Replay']: 'true' } : {};
  const [current, previous] = e.secrets.map((s) => `sha256=${signatureHex(s, e.timestamp, e.body)}`);
  if (format === 'v1') {
    const signatures = previous ? `${current},${previous}` : current;
    return {
      'Service-Event': e.eventType,
      // /v1 ids are strings with a type prefix (SPEC §15); the same on every retry.
      'Service-Delivery': `evt_${e.eventId}`,
      'Service-Signature': `t=${e.timestamp},${signatures}`,
      ...replay,
    };
  }
  return {
    'X-Service-Event': e.eventType,
    'X-Service-Delivery': String(e.eventId),
    'X-Service-Timestamp': String(e.timestamp),
    'X-Service-Signature': current!,
    ...(previous ? { 'X-Service-Signature-Previous': previous } : {}),
    ...replay,
  };
}
