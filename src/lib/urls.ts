/**
 * Why a URL cannot be a target for outbound requests, or null when its form is acceptable:
 * http(s) only, a host, no credentials. Address checks happen when connecting.
 */
export function outboundUrlProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute http or https URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must use http or https';
  if (!url.hostname) return 'must name a host';
  if (url.username || url.password) return 'must not carry credentials (user:password@)';
  if (value.length > 2048) return 'must be at most 2048 characters';
  return null;
}
