import { Type } from '@sinclair/typebox';
import { Pagination } from '../../http/schemas.js';
import { Nullable } from '../../http/validation.js';
import { RISK_CATEGORIES } from '../../providers/adverse-media/taxonomy.js';

export const S = Nullable(Type.String());
export const Source = Type.Object({ name: Type.String(), date: S, license: Type.Optional(Type.String()), url: Type.Optional(Type.String()) });
export const Status = Type.String({ description: 'PENDING, then FINISHED (or FAILED, with error)' });
export const Id = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

export const SearchStatus = Type.Object({ id: Type.String(), status: Status, startDate: Type.String() }, { title: 'AdverseMediaSearchStarted' });
export const Report = Type.Object(
  {
    id: Type.String(),
    status: Status,
    startDate: Type.String(),
    stopDate: S,
    riskCategories: Type.Array(Type.String({ enum: [...RISK_CATEGORIES] })),
    findings: Type.Array(
      Type.Object({
        title: Type.String(),
        snippet: Type.String(),
        summary: Type.String({ description: 'which risk terms stood how near the name, and where and when it was published' }),
        displayLink: S,
        link: Type.String(),
        image: S,
        publishedAt: S,
        riskCategories: Type.Array(Type.String()),
        source: Source,
      }),
    ),
    error: Type.Optional(Type.String()),
  },
  { title: 'AdverseMediaReport' },
);
export const Submitted = Type.Object({ id: Type.String(), start_date: Type.String(), status: Status, type: Type.String() }, { title: 'BackgroundCheckSubmitted' });
export const Results = Type.Object(
  {
    id: Type.String(),
    start_date: Type.String(),
    stop_date: S,
    status: Status,
    risk_status: Nullable(Type.String({ description: 'CLEARED or REVIEW once finished' })),
    type: Type.String(),
    pdf: Nullable(Type.String({ description: 'the PDF report, served with the API key' })),
    report_items: Type.Array(
      Type.Object({
        name: Type.String(),
        status: Type.String({ description: 'CLEAR, REVIEW, NOT_RUN (no data source configured), or PENDING (waiting on its provider: Checkr, on the person)' }),
        items: Type.Array(
          Type.Object({
            title: Type.String(),
            subtitle: Type.Optional(Type.String()),
            description: Type.Optional(Type.String()),
            tags: Type.Array(Type.String()),
            images: Type.Optional(Type.Array(Type.String())),
          }),
        ),
      }),
    ),
    error: Type.Optional(Type.String()),
  },
  { title: 'BackgroundCheck' },
);

export const ListQuery = Type.Object({ ...Pagination, status: Type.Optional(Type.String({ enum: ['PENDING', 'FINISHED', 'FAILED'] })) }, { additionalProperties: false });

export const Person = {
  first_name: Type.String({ minLength: 1, maxLength: 100, description: "the person's given name" }),
  middle_name: Type.Optional(Type.String()),
  last_name: Type.String({ minLength: 1, maxLength: 100, description: "the person's family name" }),
  year_of_birth: Type.Optional(Type.Union([Type.Integer(), Type.String()], { description: 'YYYY' })),
  country: Type.Optional(Type.String({ description: 'ISO 3166 alpha-2' })),
  city: Type.Optional(Type.String()),
  state: Type.Optional(Type.String()),
};
