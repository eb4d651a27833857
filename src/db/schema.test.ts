import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { sql } from 'kysely';
import ts from 'typescript';
import { createTestApp, dbKind } from '../../test/harness.js';

interface Declared {
  /** `| null` in its type. */
  nullable: boolean;
  /** Declared optional (`name?:`): a column one dialect has and the other not. */
  optional: boolean;
}

/** The table types of schema.ts, read from its source: for each table of `Database`, its columns. */
function declaredTables(): Map<string, Map<string, Declared>> {
  const file = new URL('./schema.ts', import.meta.url);
  const source = ts.createSourceFile('schema.ts', readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const interfaces = new Map<string, ts.InterfaceDeclaration>();
  source.forEachChild((n) => {
    if (ts.isInterfaceDeclaration(n)) interfaces.set(n.name.text, n);
  });
  const columnsOf = (decl: ts.InterfaceDeclaration) =>
    new Map(
      decl.members.filter(ts.isPropertySignature).map((m) => {
        const type = m.type!;
        const nullable = ts.isUnionTypeNode(type) && type.types.some((t) => ts.isLiteralTypeNode(t) && t.literal.kind === ts.SyntaxKind.NullKeyword);
        return [(m.name as ts.Identifier).text, { nullable, optional: m.questionToken !== undefined }] as const;
      }),
    );
  const tables = new Map<string, Map<string, Declared>>();
  for (const m of interfaces.get('Database')!.members.filter(ts.isPropertySignature)) {
    const typeName = ((m.type as ts.TypeReferenceNode).typeName as ts.Identifier).text;
    tables.set((m.name as ts.Identifier).text, columnsOf(interfaces.get(typeName)!));
  }
  return tables;
}

// Tables the migrations make for the storage's own use, which no repository reads through the
// table types: the migrator's, and SQLite's full-text index with its bookkeeping.
const INTERNAL = /^(kysely_migration|kysely_migration_lock|reservations_fts.*|news_fts.*)$/;

test(`the table types in schema.ts match the migrated schema (${dbKind})`, async (t) => {
  const app = await createTestApp();
  t.after(() => app.close());
  const migrated = new Map<string, Map<string, boolean>>();
  const add = (table: string, column: string, nullable: boolean) => {
    if (INTERNAL.test(table)) return;
    if (!migrated.has(table)) migrated.set(table, new Map());
    migrated.get(table)!.set(column, nullable);
  };
  if (dbKind === 'postgres') {
    // This app's schema only: Kysely's introspector reads every schema, including those other
    // tests are creating and dropping meanwhile.
    const { rows } = await sql<{ table_name: string; column_name: string; is_nullable: string }>`
      select c.table_name, c.column_name, c.is_nullable from information_schema.columns c
      join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
      where c.table_schema = current_schema() and t.table_type = 'BASE TABLE'`.execute(app.deps.db);
    for (const r of rows) add(r.table_name, r.column_name, r.is_nullable === 'YES');
  } else {
    for (const table of await app.deps.db.introspection.getTables()) for (const c of table.columns) add(table.name, c.name, c.isNullable);
  }
  const declared = declaredTables();
  assert.deepEqual([...declared.keys()].sort(), [...migrated.keys()].sort(), 'the tables');
  for (const [table, columns] of declared) {
    const actual = migrated.get(table)!;
    const expected = [...columns].filter(([name, c]) => !c.optional || actual.has(name)).map(([name]) => name);
    assert.deepEqual([...actual.keys()].sort(), expected.sort(), `the columns of ${table} (as migrated, then as declared)`);
    for (const [column, { nullable, optional }] of columns) {
      if (optional) continue;
      if (nullable) assert.equal(actual.get(column), true, `${table}.${column} is declared nullable but the database refuses null`);
      // SQLite lets a primary key without NOT NULL hold null, so the other way is PostgreSQL's to check.
      else if (dbKind === 'postgres' && actual.get(column) === true) assert.fail(`${table}.${column} may be null in the database but its type says it never is`);
    }
  }
});
