// What an admin sends to create a statement or issue its next version: one TypeBox schema, used by the admin routes
// (Ajv through Fastify) and by `credence panels:issue FILE.json` (the same Ajv, through surfaces/panel-file.ts).
import Type, { type Static } from 'typebox';
import { USERNAME_PATTERN } from '../accounts/rules.js';
import { StringEnum } from '../typebox.js';

/** From most to least certain (the GRADE scale panels use, with the seed's `low-moderate` step). */
export const CERTAINTIES = ['high', 'moderate', 'low-moderate', 'low', 'very-low'] as const;
export const REOPEN_TRIGGERS = ['new_study', 'source_corrected', 'alert_extended'] as const;
/** `abstain` covers a panellist who recused (a conflict of interest) or did not vote; it counts in neither total. */
export const PANEL_VOTES = ['agree', 'dissent', 'abstain'] as const;

export type Certainty = (typeof CERTAINTIES)[number];
export type ReopenTrigger = (typeof REOPEN_TRIGGERS)[number];
export type PanelVote = (typeof PANEL_VOTES)[number];

/** 3 to 100 lower-case letters, digits and hyphens, at least one letter: `vitamin-d-respiratory-infections`. */
export const PANEL_ID_PATTERN = '^(?=.*[a-z])[a-z0-9][a-z0-9-]{1,98}[a-z0-9]$';
// Versions are integers in the database; a bound keeps an absurd number a 400 rather than a driver error.
export const MAX_VERSION = 2_147_483_647;

export const PanelEntryInput = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200, description: 'The panellist’s name as the statement prints it' }),
    role: Type.String({ minLength: 1, maxLength: 60, description: 'e.g. `chair`, `member`, `methodologist`' }),
    vote: StringEnum(PANEL_VOTES),
    username: Type.Optional(
      Type.String({ pattern: USERNAME_PATTERN, description: 'The panellist’s account, if they have one: their profile is linked' }),
    ),
  },
  { additionalProperties: false },
);

const content = {
  topic: Type.String({ minLength: 1, maxLength: 50, description: 'Lower-cased, spaces become hyphens' }),
  question: Type.String({ minLength: 1, maxLength: 1000 }),
  answer: Type.String({ minLength: 1, maxLength: 5000 }),
  certainty: StringEnum(CERTAINTIES),
  vote: Type.Object(
    {
      agree: Type.Integer({ minimum: 0, maximum: 1000 }),
      dissent: Type.Integer({ minimum: 0, maximum: 1000 }),
    },
    { additionalProperties: false, description: 'Must match the panellists’ votes' },
  ),
  panel: Type.Array(PanelEntryInput, { minItems: 1, maxItems: 100 }),
  revisit_by: Type.String({ format: 'date', description: 'YYYY-MM-DD, after the issue date' }),
  reopen_triggers: Type.Array(StringEnum(REOPEN_TRIGGERS), { maxItems: REOPEN_TRIGGERS.length, uniqueItems: true }),
  sources: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 2048, description: 'An http(s) URL' }), {
      maxItems: 50,
      description:
        'The pages the statement relies on, by URL. When one of them is registered with Credence and gets an accepted correction, a retraction or an expression of concern, or its text changes after this version was issued, the version is flagged for review.',
    }),
  ),
};

/** A new statement (its version 1), and the file `panels:issue` reads (where `version` may name any version). */
export const StatementInput = Type.Object(
  {
    id: Type.String({ pattern: PANEL_ID_PATTERN, description: 'The statement’s public id, slug-like' }),
    version: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_VERSION,
        description: 'Optional on creation, where it can only be 1. In a `panels:issue` file: the version the file issues.',
      }),
    ),
    ...content,
  },
  { additionalProperties: false },
);

/** The next version of an existing statement. */
export const VersionInput = Type.Object(
  {
    version: Type.Optional(
      Type.Integer({
        minimum: 2,
        maximum: MAX_VERSION,
        description:
          'The version being issued: the current one plus 1, else 409 conflict. Left out: the current one plus 1 as of this call; a version issued by someone else meanwhile is still a 409.',
      }),
    ),
    ...content,
  },
  { additionalProperties: false },
);

export type StatementInput = Static<typeof StatementInput>;
export type VersionInput = Static<typeof VersionInput>;
/** The fields every version carries, as the admin wrote them. */
export type StatementContentInput = Omit<VersionInput, 'version'>;
