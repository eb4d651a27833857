import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { matchName, mentions, NAME_THRESHOLD, SAME_PERSON } from './match.js';
import { nameTokens } from './names.js';

const hit = (person: string, listed: string) => {
  const m = matchName(person, listed);
  assert.ok(m.score >= NAME_THRESHOLD, `${person} ~ ${listed}: ${m.explanation}`);
  return m;
};
const miss = (person: string, listed: string) => {
  const m = matchName(person, listed);
  assert.ok(m.score < NAME_THRESHOLD, `${person} ~ ${listed} should not match: ${m.explanation}`);
  return m;
};

describe('the name matcher', () => {
  it('finds a listed person given by first and last name only, in Latin or Cyrillic, without the middle name or patronymic', () => {
    const m = hit('Mikhail Fradkov', 'FRADKOV, Mikhail Efimovich');
    assert.match(m.explanation, /family name 'fradkov' ~ 'fradkov' \(same\); given name 'mikhail' ~ 'mikhail' \(same\); patronymic name 'efimovich' not given/);
    hit('Михаил Фрадков', 'FRADKOV, Mikhail Efimovich');
    hit('Vladimir Vladimirovich Putin', 'PUTIN, Vladimir');
    hit('Fradkov Mikhail', 'FRADKOV, Mikhail Efimovich');
  });

  it('reads Arabic script, which writes no short vowels, by its consonants, and its article joined to the name', () => {
    const m = hit('بشار الأسد', 'AL-ASSAD, Bashar');
    assert.match(m.explanation, /family name 'assad' ~ 'lsd' \(same consonants\); given name 'bashar' ~ 'bshr' \(same consonants\)/);
    hit('قاسم سليماني', 'SOLEIMANI, Qasem');
    hit('حسن نصر الله', 'NASRALLAH, Hasan');
    hit('محمد جواد ظریف', 'ZARIF, Mohammad Javad');
    // Arabic writes kh and q apart: Farrokh is not Farooq.
    miss('فرخ محمد', 'FAROOQ, Muhammad');
  });

  it('reads Hebrew by its consonants (k, kh and c one letter), Greek, and Japanese kana as Hepburn writes it', () => {
    hit('משה כהן', 'COHEN, Moshe');
    hit('Γιώργος Παπαδόπουλος', 'PAPADOPOULOS, Georgios');
    hit('ヤマダ タロウ', 'YAMADA, Taro');
    hit('さとう ゆうこ', 'SATO, Yuko');
  });

  it('takes a slip in a long name, names run together and spellings that differ in their vowels', () => {
    assert.match(hit('Vladimir Pulin', 'PUTIN, Vladimir Vladimirovich').explanation, /'putin' ~ 'pulin' \(one slip\)/);
    assert.match(hit('VladimirPutin', 'PUTIN, Vladimir Vladimirovich').explanation, /\(run together\)/);
    hit('YoussefBenAzza', 'BEN AZZA, Youssef');
    hit('Mohammed Ansari', 'ANSARI, Muhammad Reza');
    hit('Evgeny Prigozhin', 'PRIGOZHIN, Yevgeniy Viktorovich');
  });

  it('raises no hit on a shared given name alone, nor on a short name one letter apart', () => {
    assert.match(miss('Omar Farouk', 'OMAIRI, Farouk').explanation, /family name 'omairi' not given \(no match without it\)/);
    miss('Wei Zhou', 'WEI, Zhao');
    miss('Vladimir Petrov', 'PUTIN, Vladimir Vladimirovich');
    miss('Maria Santos', 'SANTOS PEREZ, Jose Maria');
    miss('Fradkov', 'FRADKOV, Mikhail Efimovich');
  });

  it("pairs an initial or a short form only for little, below a hit and above the line of one person's own documents", () => {
    for (const [person, written] of [
      ['John Smith', 'J SMITH'],
      ['Alex Petrov', 'PETROV, Alexander'],
      ['Chris Evans', 'EVANS, Christopher John'],
    ] as const) {
      const m = miss(person, written);
      assert.ok(m.score >= SAME_PERSON, `${person} ~ ${written}: ${m.explanation}`);
      assert.match(m.explanation, /\((initial|short form)\)/);
    }
    // A spouse's passport: the same family name, another given name.
    for (const [person, written] of [
      ['Ivan Petrov', 'PETROVA, Anna'],
      ['Lisa Wong', 'WANG, Li'],
      ['Anna Schmidt', 'SMITH, Jonathan'],
    ] as const) {
      assert.ok(matchName(person, written).score < SAME_PERSON, `${person} ~ ${written}`);
    }
  });

  it('finds a person named in running text however it writes the name, and not a relative or a passer-by', () => {
    const named = (person: string, text: string) =>
      mentions(person, nameTokens(text)).map((m) =>
        nameTokens(text)
          .slice(m.start, m.end + 1)
          .join(' '),
      );
    assert.deepEqual(named('Vladimir Putin', 'Talks with Vladimir Vladimirovich Putin ended; Putin, Vladimir left.'), ['vladimir vladimirovich putin', 'putin vladimir']);
    assert.deepEqual(named('Evgeny Prigozhin', 'Yevgeniy Prigozhin was seen'), ['yevgeniy prigozhin']);
    assert.deepEqual(named('John Smith', 'John met Anna Smith at the station'), []);
    assert.deepEqual(named('Dana Whitlock', 'the fraud team worked with Whitlock Ltd'), []);
  });
});
