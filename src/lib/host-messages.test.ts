import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IntlMessageFormat } from 'intl-messageformat';
import { operatorWords } from '../../test/host-language.js';
import { dateInWords, HOST_MESSAGES, listInWords, say, type HostMessage } from './host-messages.js';

type Node = { type: number; value?: string; options?: Record<string, { value: Node[] }>; children?: Node[] };

/** Each argument of a message with the values worth trying: every option of a select, one and many of a plural. */
function argumentsOf(nodes: Node[], into = new Map<string, (string | number)[]>()): Map<string, (string | number)[]> {
  for (const n of nodes) {
    if (n.type === 5 && n.value && n.options) into.set(n.value, Object.keys(n.options));
    else if (n.type === 6 && n.value) into.set(n.value, [1, 3]);
    else if (n.value && n.type >= 1 && n.type <= 4 && !into.has(n.value)) into.set(n.value, ['Sample']);
    for (const o of Object.values(n.options ?? {})) argumentsOf(o.value, into);
    if (n.children) argumentsOf(n.children, into);
  }
  return into;
}

describe('the host message catalogue', () => {
  it('speaks to hosts: no message, whatever its values, names a command, a setting, a library or an algorithm', () => {
    const slips: string[] = [];
    let formatted = 0;
    for (const key of Object.keys(HOST_MESSAGES) as HostMessage[]) {
      const args = argumentsOf(new IntlMessageFormat(HOST_MESSAGES[key], 'en').getAst());
      const base = Object.fromEntries([...args].map(([name, values]) => [name, values[0]!]));
      const variants = [base, ...[...args].flatMap(([name, values]) => values.slice(1).map((v) => ({ ...base, [name]: v })))];
      for (const values of variants) {
        const text = say(key, values);
        formatted++;
        assert.ok(text.trim().length > 0, key);
        if (operatorWords.test(text)) slips.push(`${key}: ${text}`);
      }
    }
    assert.ok(formatted > Object.keys(HOST_MESSAGES).length, `${formatted} messages formatted`);
    assert.deepEqual(slips, []);
  });

  it('writes lists and dates as a host reads them', () => {
    assert.equal(listInWords(['a', 'b', 'c']), 'a, b and c');
    assert.equal(dateInWords('1968-01-02'), '2 January 1968');
    assert.equal(dateInWords('2025-12'), 'December 2025');
    assert.equal(dateInWords('2026-11-24T09:05:00.000Z', true), '24 November 2026, 09:05 UTC');
    assert.equal(say('fraud.velocity', { count: 1 }), 'The same e-mail or phone made 1 other reservation in the last 24 hours');
  });
});
