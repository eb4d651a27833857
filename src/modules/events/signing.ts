import { createHmac } from 'node:crypto';

/**
 * Standard Webhooks signature: base64 HMAC-SHA256 of `id.timestamp.body` under the bytes
 * of the secret after its `whsec_` prefix, written `v1,<signature>`; several are
 * space-separated (during a secret rotation).
 */
export function signatureHeader(secrets: string[], id: string, timestamp: number, body: string): string {
  return secrets
    .map((secret) => {
      const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
      return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
    })
    .join(' ');
}
