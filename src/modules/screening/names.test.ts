import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { matchName, nameTokens, normaliseName } from './names.js';

describe('name normalisation', () => {
  it('folds case, accents and punctuation, and transliterates other scripts to Latin letters', () => {
    assert.deepEqual(nameTokens("José O'Brien-Núñez"), ['jose', 'o', 'brien', 'nunez']);
    assert.deepEqual(nameTokens('Łukasz Żółć'), ['lukasz', 'zolc']);
    assert.deepEqual(nameTokens('Straße Ærø'), ['strasse', 'aero']);
    assert.deepEqual(nameTokens('Владимир Путин'), ['vladimir', 'putin']);
    assert.deepEqual(nameTokens('Γιώργος Παπαδόπουλος'), ['giorgos', 'papadopoylos']);
    assert.deepEqual(nameTokens('Ｍａｒｉａ'), ['maria']);
    // Chinese and Korean characters are a syllable each.
    assert.deepEqual(nameTokens('张小明'), ['zhang', 'xiao', 'ming']);
    assert.equal(normaliseName('PUTIN, Vladimir'), normaliseName('Владимир Путин'));
  });

  it('matches a name written in another script against the listed Latin one, and explains it in the original', () => {
    const cyrillic = matchName('Владимир Путин', 'PUTIN, Vladimir Vladimirovich');
    assert.ok(cyrillic.score >= 0.9, String(cyrillic.score));
    assert.match(cyrillic.explanation, /^'Владимир Путин' matched 'PUTIN, Vladimir Vladimirovich'/);
    assert.ok(matchName('张小明', 'ZHANG, Xiaoming').score >= 0.9);
    assert.ok(matchName('Мария Иванова', 'PUTIN, Vladimir').score < 0.7);
  });
});
