/**
 * A name's spelling with the differences of romanisation taken out, so spellings of one name
 * written by different systems compare equal (Yevgeniy, Evgeny and Evgenii; Andrey and Andrei;
 * Aleksandr and Alexandr; Mohammed and Mohamed; Youssef and Yousef) while different names stay
 * apart (Ivan and Ivana; Lucio and Lucia; Mahmoud and Muhammad). Only rules that change how a
 * name is written, never which name it is: doubled letters once, ph f, kh h, ks x, zh and dzh j,
 * ou and oo u, ee i, ya and yu as ia and iu, a closing -iy, -ii, -yi or -y as -i, an opening ye
 * as e, c before a, o or u and q as k (Qasim, Kasim), and ay and ei as ai (Husayn, Hussein).
 */
export function spellingKey(token: string): string {
  let found = KEYS.get(token);
  if (found === undefined) {
    if (KEYS.size >= 100_000) KEYS.clear();
    found = token
      .replace(/(.)\1+/g, '$1')
      .replace(/ph/g, 'f')
      .replace(/kh/g, 'h')
      .replace(/ks/g, 'x')
      .replace(/d?zh/g, 'j')
      .replace(/ou|oo/g, 'u')
      .replace(/ee/g, 'i')
      .replace(/y([au])/g, 'i$1')
      .replace(/(?:iy|ii|yi|y)$/, 'i')
      .replace(/^ye/, 'e')
      .replace(/c(?=[aou])/g, 'k')
      .replace(/q/g, 'k')
      .replace(/ay|ei/g, 'ai')
      .replace(/(.)\1+/g, '$1');
    KEYS.set(token, found);
  }
  return found;
}

const KEYS = new Map<string, string>();
