import type { VendorConfig } from '../../config.js';
import { callVendor, isObject, providerFailed, str, unexpected } from '../core.js';
import type { ThreatFinding, ThreatProvider } from './index.js';

// AbuseIPDB's report categories (docs.abuseipdb.com/#report-categories).
const CATEGORIES: Record<number, string> = {
  1: 'DNS Compromise',
  2: 'DNS Poisoning',
  3: 'Fraud Orders',
  4: 'DDoS Attack',
  5: 'FTP Brute-Force',
  6: 'Ping of Death',
  7: 'Phishing',
  8: 'Fraud VoIP',
  9: 'Open Proxy',
  10: 'Web Spam',
  11: 'Email Spam',
  12: 'Blog Spam',
  13: 'VPN IP',
  14: 'Port Scan',
  15: 'Hacking',
  16: 'SQL Injection',
  17: 'Spoofing',
  18: 'Brute-Force',
  19: 'Bad Web Bot',
  20: 'Exploited Host',
  21: 'Web App Attack',
  22: 'SSH',
  23: 'IoT Targeted',
};

/** AbuseIPDB v2 check: a finding when the address has reports or a confidence score above 0. */
export function abuseipdbThreats(vendor: VendorConfig): ThreatProvider {
  return {
    name: 'abuseipdb',
    remote: true,
    async lookup(ip, ctx) {
      const label = 'AbuseIPDB';
      const a = await callVendor(ctx, 'abuseipdb', label, `${vendor.url}/check?ipAddress=${encodeURIComponent(ip)}&maxAgeInDays=90&verbose`, {
        headers: { key: vendor.secrets.API_KEY ?? '' },
      });
      const detail = isObject(a.json) && Array.isArray(a.json.errors) && isObject(a.json.errors[0]) ? str(a.json.errors[0].detail) : null;
      if (a.status === 401 || a.status === 403) throw providerFailed(label, `refused the API key${detail ? `: ${detail}` : ''}`);
      if (a.status !== 200 || !isObject(a.json) || !isObject(a.json.data)) throw unexpected(label, a);
      const d = a.json.data;
      const score = typeof d.abuseConfidenceScore === 'number' ? d.abuseConfidenceScore : 0;
      const total = typeof d.totalReports === 'number' ? d.totalReports : 0;
      if (score === 0 && total === 0 && d.isTor !== true) return [];
      const reports = Array.isArray(d.reports) ? d.reports.filter(isObject) : [];
      const categories = new Set<string>();
      for (const r of reports) for (const c of Array.isArray(r.categories) ? r.categories : []) if (CATEGORIES[c as number]) categories.add(CATEGORIES[c as number] as string);
      const reasons = [`abuse confidence score ${score} of 100`, `${total} report${total === 1 ? '' : 's'} from ${typeof d.numDistinctUsers === 'number' ? d.numDistinctUsers : 0} users in 90 days`];
      if (str(d.usageType)) reasons.push(`usage type: ${str(d.usageType)}`);
      const finding: ThreatFinding = {
        title: `Reported for abuse on AbuseIPDB (confidence ${score}%)`,
        link: `https://www.abuseipdb.com/check/${encodeURIComponent(ip)}`,
        timestamp: str(d.lastReportedAt),
        tags: [...(d.isTor === true ? ['tor'] : []), ...[...categories].map((c) => c.toLowerCase().replace(/[^a-z0-9]+/g, '-'))],
        reasons,
        source: { name: 'AbuseIPDB', date: ctx.deps.clock().toISOString(), url: 'https://www.abuseipdb.com' },
      };
      return [finding];
    },
  };
}
