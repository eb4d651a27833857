import {
  OperationNodeTransformer,
  sql,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type PrimitiveValueListNode,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
  type ValueNode,
} from 'kysely';

// Everything that differs between SQLite and PostgreSQL lives here, so the rest of the code
// writes one set of queries.
export type DialectKind = 'sqlite' | 'postgres';

export interface DialectHelpers {
  kind: DialectKind;
  /** Column type for a boolean flag. */
  boolType: 'boolean' | 'integer';
  /** Column type for an auto-incrementing surrogate key. */
  serialType: 'integer' | 'bigserial';
  /** Column type for a blob of bytes. */
  blobType: 'blob' | 'bytea';
}

export function dialectHelpers(kind: DialectKind): DialectHelpers {
  return kind === 'sqlite'
    ? { kind, boolType: 'integer', serialType: 'integer', blobType: 'blob' }
    : { kind, boolType: 'boolean', serialType: 'bigserial', blobType: 'bytea' };
}

/** count(*) comes back as a string from PostgreSQL (bigint) and a number from SQLite. */
export const countAll = () => sql<number | string>`count(*)`;

class BooleanToInteger extends OperationNodeTransformer {
  protected override transformValue(node: ValueNode): ValueNode {
    const n = super.transformValue(node);
    return typeof n.value === 'boolean' ? { ...n, value: n.value ? 1 : 0 } : n;
  }

  protected override transformPrimitiveValueList(node: PrimitiveValueListNode): PrimitiveValueListNode {
    const n = super.transformPrimitiveValueList(node);
    return { ...n, values: n.values.map((v) => (typeof v === 'boolean' ? (v ? 1 : 0) : v)) };
  }
}

/** better-sqlite3 cannot bind JavaScript booleans; this turns them into 1 and 0 on the way in. */
export class SqliteBooleanPlugin implements KyselyPlugin {
  readonly #transformer = new BooleanToInteger();

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return this.#transformer.transformNode(args.node);
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}
