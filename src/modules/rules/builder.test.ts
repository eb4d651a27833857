import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fromCel, RULE_FIELDS, toCel, type Condition } from './builder.js';
import { compileProblem } from './context.js';

describe('the rule builder', () => {
  it('writes CEL that compiles for every field and comparison it offers, and reads it back as it was built', () => {
    const sample: Record<string, string> = { int: '3', double: '2000', string: 'Airbnb, Direct' };
    for (const f of RULE_FIELDS) {
      const ops =
        f.type === 'bool' ? (['true', 'false'] as const) : f.type === 'string' ? (['==', '!=', 'in', 'contains', 'startsWith', 'endsWith'] as const) : (['>', '>=', '<', '<=', '==', '!='] as const);
      for (const op of ops) {
        const c: Condition = { field: f.path, op, value: f.type === 'string' && op !== 'in' ? 'Air"bnb' : (sample[f.type] ?? '') };
        const built = toCel([c], 'all');
        assert.ok('expression' in built, `${f.path} ${op}: ${JSON.stringify(built)}`);
        assert.equal(compileProblem(built.expression), null, built.expression);
        const back = fromCel(built.expression);
        assert.ok(back, `read back: ${built.expression}`);
        assert.deepEqual(back.conditions[0], { ...c, value: c.op === 'true' || c.op === 'false' ? '' : f.type === 'double' ? '2000' : c.value });
      }
    }
  });

  it('joins conditions with all or any, and opens a hand-written rule of the same shape', () => {
    const built = toCel(
      [
        { field: 'reservation.source', op: '==', value: 'Direct' },
        { field: 'reservation.lead_days', op: '<', value: '2' },
      ],
      'all',
    );
    assert.deepEqual(built, { expression: 'reservation.source == "Direct" && reservation.lead_days < 2' });
    assert.deepEqual(fromCel("guest.phone_country in ['XX', 'YY'] || payments.three_d_secure_failed"), {
      join: 'any',
      conditions: [
        { field: 'guest.phone_country', op: 'in', value: 'XX, YY' },
        { field: 'payments.three_d_secure_failed', op: 'true', value: '' },
      ],
    });
    // Mixed and/or, functions and fields the builder does not offer stay CEL.
    for (const cel of ['a.b > 1 && c || d', 'payments.card_countries.exists(c, c != guest.phone_country)', 'reservation.id == "x"', '(reservation.nights > 3)']) assert.equal(fromCel(cel), null, cel);
  });

  it('says in words what is wrong with a condition', () => {
    assert.deepEqual(toCel([], 'all'), { problem: 'Add at least one condition.' });
    assert.deepEqual(toCel([{ field: 'reservation.nights', op: '>', value: 'seven' }], 'all'), { problem: 'Condition 1: nights booked is compared with a number; “seven” is not one.' });
    assert.deepEqual(toCel([{ field: 'reservation.nights', op: 'contains', value: '7' }], 'all'), { problem: 'Condition 1: “contains” does not apply to nights booked.' });
  });

  it('names the field meant when CEL does not know one, and spells and and or', () => {
    assert.equal(compileProblem('nights > 1'), 'Unknown variable: nights: “nights” is not a field a rule knows; did you mean reservation.nights?');
    assert.match(compileProblem('reservation.number_of_gests > 8')!, /did you mean reservation\.number_of_guests\?$/);
    assert.match(compileProblem('reservation.nights > 1 | reservation.nights > 14')!, /write “\|\|” for or/);
  });
});
