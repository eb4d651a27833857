import anyAscii from 'any-ascii';
import doubleMetaphone from 'talisman/phonetics/double-metaphone.js';

/** Scripts written a syllable a character, where a name's characters are its romanised syllables. */
const SYLLABIC = /[\p{Script=Han}\p{Script=Hangul}]/u;

/**
 * The name in Latin letters: any-ascii's transliteration of every script (Владимир → Vladimir,
 * Łukasz → Lukasz, Straße → Strasse, Γιώργος → Giorgos), its accents gone with it. Chinese and
 * Korean characters are syllables that lists write as words of their own or run together
 * (张伟 is ZHANG Wei, 김정은 is KIM Jong Un), so each becomes a token of its own; the token
 * comparison of matchName then finds 'Xiaoming' in xiao + ming. `korean` rewrites each Korean
 * syllable (koreanSpellings).
 */
export function toLatin(name: string, korean?: (syllable: string, at: number) => string): string {
  if (/^[\x00-\x7f]*$/.test(name)) return name;
  let out = '';
  let kana = '';
  let at = 0;
  for (const ch of name.normalize('NFC')) {
    if (KANA.test(ch)) {
      kana += ch;
      at++;
      continue;
    }
    if (kana) out += hepburn(kana);
    kana = '';
    if (ch.charCodeAt(0) < 0x80) out += ch;
    else if (korean && HANGUL.test(ch)) out += ` ${korean(ch, at)} `;
    else out += SYLLABIC.test(ch) ? ` ${anyAscii(ch)} ` : anyAscii(ch);
    at++;
  }
  return kana ? out + hepburn(kana) : out;
}

const KANA = /[\p{Script=Hiragana}\p{Script=Katakana}\u30fc]/u;

/**
 * Japanese written in kana, as passports and lists write it (Hepburn without its marks): a long
 * vowel once (タロウ, たろう and ターロー are all TARO; ユウコ is YUKO), a word of kana at a time.
 */
function hepburn(kana: string): string {
  return anyAscii(kana)
    .replace(/([aiueo])\1+/g, '$1')
    .replace(/ou/g, 'o')
    .replace(/-/g, '');
}

const HANGUL = /\p{Script=Hangul}/u;

/**
 * any-ascii writes Korean in the Revised Romanization (김정은: gim jeong eun), and lists mostly
 * use the older spellings, McCune-Reischauer's without its marks and North Korea's own (KIM Jong
 * Un, PAK Pong Ju, RI Pyong Chol): k, p, t and r where it writes g, b, d and l at a syllable's
 * start, k for its final g, o and u for eo and eu, shi for si.
 */
function conventionalSyllable(rr: string): string {
  return rr
    .toLowerCase()
    .replace(/eo/g, 'o')
    .replace(/eu/g, 'u')
    .replace(/^g/, 'k')
    .replace(/^b/, 'p')
    .replace(/^d/, 't')
    .replace(/^l/, 'r')
    .replace(/^si/, 'shi')
    .replace(/(?<!n)g$/, 'k');
}

/** How lists spell the commonest Korean surnames, besides the rules above (이 is LEE, RI or YI). */
const KOREAN_SURNAMES: Record<string, string[]> = {
  이: ['lee', 'ri', 'yi'],
  리: ['ri', 'lee'],
  박: ['park', 'pak'],
  최: ['choi', 'choe'],
  정: ['jung', 'chung', 'jong'],
  조: ['cho', 'jo'],
  윤: ['yoon', 'yun'],
  장: ['jang', 'chang'],
  임: ['lim', 'rim', 'im'],
  림: ['rim', 'lim'],
  오: ['oh', 'o'],
  신: ['shin', 'sin'],
  안: ['ahn', 'an'],
  류: ['ryu', 'yoo', 'yu'],
  유: ['yoo', 'yu'],
  전: ['jeon', 'jun', 'chon', 'jon'],
  고: ['ko', 'koh'],
  문: ['moon', 'mun'],
  손: ['son', 'sohn'],
  배: ['bae', 'pae'],
  백: ['baek', 'paek'],
  허: ['heo', 'hur', 'ho'],
  노: ['noh', 'roh', 'no'],
  서: ['seo', 'suh', 'so'],
  심: ['shim', 'sim'],
  현: ['hyun', 'hyon'],
  김: ['kim'],
  강: ['kang'],
  한: ['han'],
  권: ['kwon'],
  황: ['hwang'],
  송: ['song'],
  홍: ['hong'],
  양: ['yang'],
};

/**
 * The ways lists may spell a name with Korean in it, as token lists: the Revised Romanization,
 * the older spellings, and each listed spelling of a surname that begins one of its Korean words
 * (김정은, or 정은 김 as first and last name). A name without Korean has one.
 */
export function nameVariants(name: string): string[][] {
  const variants = [nameTokens(name)];
  // Kana write a foreign name's closing consonant with a vowel after it (バラク, baraku, for
  // Barack; ロバート, robaato, for Robert): the name without it too.
  const closed = KANA.test(name) ? variants[0]!.map((t) => t.replace(/([^aeiouyn])u$|([td])o$/, '$1$2')) : undefined;
  if (closed && closed.join(' ') !== variants[0]!.join(' ')) variants.push(closed);
  if (!HANGUL.test(name)) return variants;
  const conventional = (ch: string) => conventionalSyllable(anyAscii(ch));
  variants.push(foldTokens(toLatin(name, conventional)));
  const chars = [...name.normalize('NFC')];
  chars.forEach((ch, i) => {
    if (HANGUL.test(chars[i - 1] ?? '')) return;
    for (const spelling of KOREAN_SURNAMES[ch] ?? []) variants.push(foldTokens(toLatin(name, (c, at) => (at === i ? spelling : conventional(c)))));
  });
  const seen = new Set<string>();
  return variants.filter((v) => !seen.has(v.join(' ')) && seen.add(v.join(' ')));
}

const foldTokens = (latin: string) =>
  latin
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s]/gu, ' ')
    .split(/\s+/)
    .filter(Boolean);

/** Name tokens in Latin letters, with case, accents and punctuation removed, in their order. */
export function nameTokens(name: string): string[] {
  return foldTokens(toLatin(name));
}

/** Transliterated, case, accents and punctuation removed; tokens sorted, so "SANTOS, Maria" equals "maria santos". */
export function normaliseName(name: string): string {
  return nameTokens(name).sort().join(' ');
}

/** Phonetic keys of a token (Double Metaphone, both codes), for finding candidates that sound alike. */
export function phoneticKeys(token: string): string[] {
  if (token.length < 2) return [];
  const [a, b] = doubleMetaphone(token);
  return [...new Set([a, b].filter(Boolean))];
}
