import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IntlMessageFormat } from 'intl-messageformat';
import { fieldsOf } from '../modules/portal/service.js';
import { SCREENS } from '../modules/guests/index.js';
import { CATALOGUES, chooseLocale, countryCode, fromAcceptLanguage, LOCALES, translator, type GuestPhrase } from './index.js';

type Node = { type: number; value?: string; options?: Record<string, { value: Node[] }>; children?: Node[] };

/** The names of a message's arguments. */
function argumentsOf(nodes: Node[], into = new Set<string>()): Set<string> {
  for (const n of nodes) {
    if (n.value && n.type >= 1 && n.type <= 6) into.add(n.value);
    for (const o of Object.values(n.options ?? {})) argumentsOf(o.value, into);
    if (n.children) argumentsOf(n.children, into);
  }
  return into;
}

const english = CATALOGUES.en as Record<GuestPhrase, string>;

describe('the guest message catalogues', () => {
  for (const locale of LOCALES.filter((l) => l !== 'en')) {
    it(`${locale} has every key English has, no other, each with English's arguments`, () => {
      const own = CATALOGUES[locale];
      const missing = Object.keys(english).filter((k) => !(k in own));
      assert.deepEqual(missing, [], `${locale} lacks these keys`);
      const extra = Object.keys(own).filter((k) => !(k in english));
      assert.deepEqual(extra, [], `${locale} has keys English does not`);
      for (const [key, text] of Object.entries(own) as [GuestPhrase, string][]) {
        const theirs = [...argumentsOf(new IntlMessageFormat(text, locale).getAst())].sort();
        const ours = [...argumentsOf(new IntlMessageFormat(english[key], 'en').getAst())].sort();
        assert.deepEqual(theirs, ours, `${locale} ${key} takes the arguments English does`);
      }
    });
  }

  it('has a title, an introduction and a label for every screen and field of the portal', () => {
    const t = translator('en');
    for (const screen of SCREENS) {
      for (const key of [`screen.${screen}.title`, `screen.${screen}.intro`]) assert.ok(key in english, key);
      for (const f of fieldsOf(screen, { number_of_guests: 3 })) assert.ok(f.label in english, `${screen}.${f.name}: ${f.label}`);
      assert.ok(t.t(`screen.${screen}.title` as GuestPhrase).length > 0);
    }
  });
});

describe('the guest language', () => {
  it('is the one chosen, else the booking’s, else the browser’s best, else English', () => {
    assert.equal(chooseLocale('fr', 'es', 'de'), 'fr');
    assert.equal(chooseLocale(undefined, 'es-MX', 'de'), 'es');
    assert.equal(chooseLocale('xx', 'zz', 'nl-NL,nl;q=0.9,pt-BR;q=0.8,en;q=0.5'), 'pt');
    assert.equal(chooseLocale(undefined, null, 'ja'), 'en');
    assert.equal(fromAcceptLanguage('de;q=0.2, it;q=0.7'), 'it');
    assert.equal(fromAcceptLanguage('es;q=0'), undefined);
  });

  it('speaks of the host without assuming a man or a woman', () => {
    // The pronouns that would stand for the host, as each language would write them.
    const gendered: Record<string, RegExp> = {
      es: /\b(él|ella)\b|para (él|ella)/i,
      fr: /\b(lui|elle|il supprime)\b/i,
      de: /\b(für ihn|für sie|bis er|bis sie|wen er|wen sie)\b/,
      it: /\b(per lui|per lei)\b/i,
      pt: /\b(para ele|para ela)\b/i,
      en: /\b(he|him|his|she|her)\b/i,
    };
    for (const locale of LOCALES) {
      for (const key of ['portal.privacy', 'screen.GuestList.intro'] as GuestPhrase[]) {
        const text = CATALOGUES[locale][key] ?? '';
        assert.doesNotMatch(text, gendered[locale]!, `${locale} ${key}: ${text}`);
      }
    }
  });

  it('tells the guest only what is true of the registration with the authorities: the host makes it, this page sends nothing', () => {
    const en = CATALOGUES.en['screen.AuthorityReporting.intro' as GuestPhrase] ?? '';
    assert.doesNotMatch(en, /submitted/);
    assert.match(en, /not sent to the authorities from this page/);
  });

  it('joins a preposition to the article before a name or "your host", as each language writes it', () => {
    // Every message that puts in a name, said of a host, a listing and nobody in particular.
    const values = { named: 'yes', host: 'Anna Rossi', place: 'Appartamento Trastevere', name: 'Anna', authority: 'la Polizia di Stato', from: '3 aprile', dates: '3-5 aprile', at: '2 aprile' };
    const unjoined: Record<string, RegExp> = {
      it: /\b(a|di|da|in|su) (il|lo|la|i|gli|le|l’)\b|\ba (Appartamento|Anna)\b/,
      es: /\b(a|de) el\b/,
      fr: /\b(à|de) (le|les)\b|\b(de|que) Anna\b/,
      pt: /\b(a|de|em|por) (o|os)\b/,
      de: /\b(an|von|zu|bei) (dem|der) Ihr/,
      en: /\bto to\b/,
    };
    const seen: string[] = [];
    for (const locale of LOCALES) {
      for (const [key, text] of Object.entries(CATALOGUES[locale]) as [GuestPhrase, string][]) {
        const args = argumentsOf(new IntlMessageFormat(text, locale).getAst());
        if (!['host', 'place', 'named', 'name', 'authority'].some((a) => args.has(a))) continue;
        for (const named of ['yes', 'other']) {
          for (const place of ['none', values.place]) {
            const said = translator(locale).t(key, {
              ...values,
              named,
              place,
              n: 2,
              method: 'email',
              expiry: '1 maggio',
              checkout: '5 aprile',
              age: 15,
              minimum: 18,
              date: '1 aprile',
              mb: 10,
              steps: 'x',
              id: 'a1',
              label: 'x',
              problem: 'y',
              ref: 'r',
              total: 3,
              max: 3,
              min: 3,
            });
            if (unjoined[locale]!.test(said)) seen.push(`${locale} ${key}: ${said}`);
          }
        }
      }
    }
    assert.deepEqual(seen, []);
  });

  it('writes dates and countries as its people do', () => {
    assert.equal(translator('es').date('2027-03-14'), '14 de marzo de 2027');
    assert.equal(translator('de').date('2027-03-14'), '14. März 2027');
    assert.equal(translator('fr').countryName('DE'), 'Allemagne');
    assert.equal(countryCode('Alemania'), 'DE');
    assert.equal(countryCode('esp'), 'ES');
    assert.equal(countryCode('Espana'), 'ES', 'without the tilde, as a keyboard without it types');
    assert.equal(countryCode(' osterreich '), 'AT');
    assert.equal(countryCode('Turkiye'), 'TR');
    assert.equal(countryCode('test'), undefined);
  });
});
