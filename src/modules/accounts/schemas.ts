import { Type } from '@sinclair/typebox';
import { Nullable } from '../../http/validation.js';
import { Pagination } from '../../http/schemas.js';

const Email = Type.String({ format: 'email', maxLength: 254 });
const Phone = Type.String({ maxLength: 40, pattern: '^[+0-9 ().-]*$' });
const Name = Type.String({ minLength: 1, maxLength: 200 });

export const Company = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 200 })),
    email: Type.Optional(Type.Union([Email, Type.Literal('')])),
    phone: Type.Optional(Phone),
  },
  { additionalProperties: false },
);

export const Account = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    email: Type.String(),
    phone: Type.String(),
    is_active: Type.Boolean(),
    is_suspended: Type.Boolean(),
    is_reseller: Type.Boolean({ description: 'beyond the spec: may manage child accounts' }),
    last_login: Nullable(Type.String({ format: 'date-time' })),
    created_at: Type.String({ format: 'date-time' }),
    company: Type.Object({ name: Type.String(), email: Type.String(), phone: Type.String() }),
    billing: Type.Object({ parent_account: Nullable(Type.String()) }),
  },
  { $id: 'Account', title: 'AccountDetailsResponse' },
);

export const RegisteredAccount = Type.Object(
  {
    ...Account.properties,
    api_key: Type.String({ description: "beyond the spec: the new account's API key, also listed by GET /accounts/keys" }),
  },
  { title: 'RegisteredAccount' },
);

export const AccountChildren = Type.Object(
  {
    from: Type.Integer(),
    size: Type.Integer(),
    total: Type.Integer(),
    items: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), email: Type.String(), phone: Type.String() })),
  },
  { title: 'AccountPage' },
);

export const AccountKeys = Type.Array(Type.Object({ user_id: Type.String(), user_name: Type.String(), value: Type.String() }), { title: 'ApiKeys' });

const profileFields = {
  phone: Type.Optional(Phone),
  password: Type.Optional(Type.String({ minLength: 8, maxLength: 256 })),
  company: Type.Optional(Company),
};

export const RegisterBody = Type.Object({ name: Name, email: Email, ...profileFields }, { additionalProperties: false, title: 'AccountRegistrationRequest' });

export const UpdateBody = Type.Object({ name: Type.Optional(Name), email: Type.Optional(Email), ...profileFields }, { additionalProperties: false, title: 'AccountUpdateRequest' });

export const UpdateQuery = Type.Object(
  {
    status: Type.Optional(Type.Unsafe<'active' | 'disabled'>({ type: 'string', enum: ['active', 'disabled'] })),
    suspended: Type.Optional(Type.Unsafe<'true' | 'false'>({ type: 'string', enum: ['true', 'false'] })),
  },
  { additionalProperties: false },
);

export const ChildrenQuery = Type.Object(Pagination, { additionalProperties: false });

export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
