import { say } from '../../../lib/host-messages.js';
import { STRENGTHS, type CheckResult, type Finding, type Strength } from '../types.js';

/** A strength's place in the scale: context 0 up to decisive 4. */
export const rank = (s: Strength): number => STRENGTHS.indexOf(s);

/** The strongest finding that counts (context never does), or undefined. */
export function strongest(findings: readonly Finding[]): Strength | undefined {
  let best: Strength | undefined;
  for (const f of findings) if (f.strength !== 'context' && (!best || rank(f.strength) > rank(best))) best = f.strength;
  return best;
}

/** The findings, strongest first, keeping their order among equals. */
export function strongestFirst(findings: readonly Finding[]): Finding[] {
  return findings
    .map((f, i) => ({ f, i }))
    .sort((a, b) => rank(b.f.strength) - rank(a.f.strength) || a.i - b.i)
    .map((x) => x.f);
}

/**
 * A check's answer from its findings: strong or decisive evidence FAILs it, weaker evidence is
 * a REVIEW, context alone PASSes. The value and the help both speak of the strongest finding, so
 * they never describe two different things; `flagged` replaces them where a check sums up.
 */
export function outcome(findings: Finding[], pass: { value: string; help?: string }, flagged: { value?: string; help?: string } = {}): CheckResult {
  const sorted = strongestFirst(findings);
  const top = strongest(sorted);
  if (!top) return { status: 'PASS', value: pass.value, help: pass.help ?? say('check.no_action'), findings: sorted };
  const first = sorted[0]!;
  return {
    status: rank(top) >= rank('strong') ? 'FAIL' : 'REVIEW',
    value: flagged.value ?? first.text,
    help: first.recommendation ?? flagged.help ?? say('check.no_action'),
    findings: sorted,
    strength: top,
  };
}
