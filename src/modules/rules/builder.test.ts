import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fromCel, operatorsOf, RULE_FIELDS, toCel, type Condition } from './builder.js';
import { compileProblem, RULE_ENV } from '../screening/rule-context.js';

describe('the rule builder', () => {
  it('writes CEL that compiles for every field and comparison it offers, and reads it back as it was built', () => {
    const sample: Record<string, string> = { int: '3', double: '2000', string: 'Airbnb, Direct' };
    for (const f of RULE_FIELDS) {
      for (const op of operatorsOf(f)) {
        const text = f.choices ? (op === 'in' ? 'Friday, Saturday' : 'Friday') : op === 'in' ? sample.string! : 'Air"bnb';
        const c: Condition = { field: f.path, op, value: op === 'unknown' || op === 'true' || op === 'false' ? '' : f.type === 'string' ? text : (sample[f.type] ?? '') };
        const built = toCel([c], 'all');
        assert.ok('expression' in built, `${f.path} ${op}: ${JSON.stringify(built)}`);
        assert.equal(compileProblem(built.expression), null, built.expression);
        const back = fromCel(built.expression);
        assert.ok(back, `read back: ${built.expression}`);
        assert.deepEqual(back.conditions[0], { ...c, value: f.type === 'double' ? '2000' : c.value });
      }
      assert.doesNotMatch(f.words, /check check|-1/, f.words);
    }
  });

  it('never compares an unknown value: "less than 21" holds for no guest without a birth date, "is unknown" for them alone', () => {
    const young = toCel([{ field: 'identification.age', op: '<', value: '21' }], 'all');
    assert.deepEqual(young, { expression: '(identification.age != -1 && identification.age < 21)' });
    const unknown = toCel([{ field: 'identification.age', op: 'unknown', value: '' }], 'all');
    assert.deepEqual(unknown, { expression: 'identification.age == -1' });
    const holds = (expression: string, age: number) => RULE_ENV.evaluate(expression, { identification: { age: BigInt(age) } }) === true;
    assert.equal(holds(young.expression, -1), false);
    assert.equal(holds(young.expression, 19), true);
    assert.equal(holds(unknown.expression, -1), true);
    // A hand-written comparison that would also hold for the unknown stays CEL: opened in the builder, it would change meaning.
    assert.equal(fromCel('identification.age < 21'), null);
  });

  it('offers the check-in weekday: one night on a Friday, without CEL', () => {
    const built = toCel(
      [
        { field: 'reservation.nights', op: '==', value: '1' },
        { field: 'reservation.check_in_weekday', op: '==', value: 'friday' },
      ],
      'all',
    );
    assert.deepEqual(built, { expression: 'reservation.nights == 1 && (reservation.check_in_weekday != "" && reservation.check_in_weekday == "Friday")' });
    assert.deepEqual(toCel([{ field: 'reservation.check_in_weekday', op: 'in', value: 'Fri' }], 'all'), {
      problem: 'Condition 1: “Fri” is not one of Monday, Tuesday, Wednesday, Thursday, Friday, Saturday, Sunday.',
    });
  });

  it('joins conditions with all or any, and opens a hand-written rule of the same shape', () => {
    const built = toCel(
      [
        { field: 'reservation.source', op: '==', value: 'Direct' },
        { field: 'reservation.lead_days', op: '<', value: '2' },
      ],
      'all',
    );
    assert.deepEqual(built, { expression: 'reservation.source == "Direct" && (reservation.lead_days != -1 && reservation.lead_days < 2)' });
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
