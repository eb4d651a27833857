import type { Kysely } from 'kysely';

/**
 * The last file number sent to an authority that numbers its files (Portugal's SIBA: `Envio`'s
 * `Numero_Ficheiro` counts up per establishment and is never reused). Kept per the authority's
 * own establishment (its unit and number), not per row of ours: a set-up removed and made again,
 * or two listings that share one establishment, go on from the number before.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('authority_file_numbers')
    .addColumn('system', 'text', (c) => c.notNull())
    .addColumn('unit', 'text', (c) => c.notNull())
    .addColumn('establishment', 'text', (c) => c.notNull())
    .addColumn('last_number', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('authority_file_numbers_pk', ['system', 'unit', 'establishment'])
    .execute();
}
