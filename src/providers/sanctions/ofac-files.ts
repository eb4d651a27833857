/**
 * OFAC publishes a list's aliases, addresses and remarks as files beside its primary records:
 * given sdn.csv or cons_prim.csv, the refresh fetches those too (each left out when the server
 * has none), and the operator is told to import them together.
 */
export const OFAC_COMPANIONS: [RegExp, Record<'aliases' | 'addresses' | 'comments', string>][] = [
  [/(^|\/)sdn\.csv$/i, { aliases: 'alt.csv', addresses: 'add.csv', comments: 'sdn_comments.csv' }],
  [/(^|\/)cons_prim\.csv$/i, { aliases: 'cons_alt.csv', addresses: 'cons_add.csv', comments: 'cons_comments.csv' }],
];
