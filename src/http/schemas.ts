import { Type, type TSchema } from '@sinclair/typebox';

/** The spec's ErrorResponse, with the fields DESIGN.md section 9 lets ride along. */
export const ErrorResponse = Type.Object(
  {
    error: Type.String({ description: 'what went wrong, naming the field for validation failures' }),
    code: Type.Optional(Type.String({ description: 'stable machine-readable code' })),
    request_id: Type.Optional(Type.String({ description: 'quote it when reporting a problem' })),
  },
  { $id: 'ErrorResponse', title: 'ErrorResponse' },
);

export const MessageResponse = Type.Object({ message: Type.String() }, { additionalProperties: false });

/** Error answers every authenticated route can give. */
export const authErrors = {
  400: Type.Ref(ErrorResponse),
  401: Type.Ref(ErrorResponse),
  403: Type.Ref(ErrorResponse),
  404: Type.Ref(ErrorResponse),
  415: Type.Ref(ErrorResponse),
  429: Type.Ref(ErrorResponse),
  500: Type.Ref(ErrorResponse),
};

/**
 * An amount of money in the reservation's currency. A trillion is beyond any stay's price in any
 * currency, and keeps sums and averages of amounts far from the limits of a double.
 */
export const Money = (description?: string) => Type.Number({ minimum: 0, maximum: 1e12, ...(description ? { description } : {}) });

/** `true|false|1|0` in a query string, as the spec's flags are written. */
export const QueryFlag = Type.Unsafe<'true' | 'false' | '1' | '0'>({ type: 'string', enum: ['true', 'false', '1', '0'] });
export const isTrue = (v: string | undefined) => v === 'true' || v === '1';

export const Pagination = {
  from: Type.Optional(Type.Integer({ minimum: 0, default: 0, description: 'offset, default 0' })),
  size: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'page size, default 20, at most 100' })),
};

/** DESIGN.md's list envelope around items of the given schema. */
export const PageOf = <T extends TSchema>(item: T) => Type.Object({ from: Type.Integer(), size: Type.Integer(), total: Type.Integer(), items: Type.Array(item) });

/** preValidation for routes whose JSON body the spec marks optional: no body reads as {}. */
export async function emptyBodyIsObject(request: { body: unknown }): Promise<void> {
  if (request.body === undefined || request.body === null) request.body = {};
}
