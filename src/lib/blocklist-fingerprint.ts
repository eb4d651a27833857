/**
 * A blocklist entry's identity: its identifiers as stored (already normalised), the name folded
 * to one case and single spaces. Two entries with the same fingerprint name the same person the
 * same way; the reason is not part of it. Here rather than in the blocklist module because a
 * migration computes it for the entries it finds.
 */
export function entryFingerprint(e: { name: string | null; email: string | null; phone: string | null; document_number: string | null }): string {
  const name = e.name ? e.name.normalize('NFC').trim().replace(/\s+/g, ' ').toLowerCase() : '';
  return JSON.stringify([name, e.email ?? '', e.phone ?? '', e.document_number ?? '']);
}
