// The signature of a delivery (SPEC §10): hex HMAC-SHA256, keyed with the whole secret (`whsec_…`), over
// "<unix seconds>.<raw body>", the exact bytes sent. During a rotation every valid secret signs.
import { createHmac, randomBytes } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';

export const newWebhookSecret = (): string => SECRET_PREFIX + randomBytes(32).toString('hex');

export function signatureHex(secret: string, timestamp: number, body: Buffer): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
}

/** The signing headers of one attempt, in the scheme of the endpoint's format. */
export function signedHeaders(
  format: 'v1' | 'api_v1',
  e: { eventId: number; eventType: string; timestamp: number; body: Buffer; secrets: string[] },
): Record<string, string> {
  const signatures = e.secrets.map((s) => `sha256=${signatureHex(s, e.timestamp, e.body)}`).join(',');
  if (format === 'v1') {
    return {
      'Service-Event': e.eventType,
      // /v1 ids are strings with a type prefix (SPEC §15); the same on every retry.
      'Service-Delivery': `evt_${e.eventId}`,
      'Service-Signature': `t=${e.timestamp},${signatures}`,
    };
  }
  return {
    'X-Service-Event': e.eventType,
    'X-Service-Delivery': String(e.eventId),
    'X-Service-Timestamp': String(e.timestamp),
    'X-Service-Signature': signatures,
  };
}
