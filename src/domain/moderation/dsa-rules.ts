// The DSA Transparency Database's validation of one statement of reasons, written here from its published rules:
// app/Http/Requests/StatementStoreRequest.php and the lists of app/Models/Statement.php and
// app/Services/EuropeanCountriesService.php in digital-services-act/transparency-database, commit 69e80a0 (2026-06-24).
// Only the rules for the fields this service sends and their conditions are written out; an unknown field is an
// error, so a field added to the export without a rule here fails its test. docs/decisions/dsa-transparency-export.md.
import { CATEGORIES } from './rules.js';

export const DECISION_VISIBILITIES = [
  'DECISION_VISIBILITY_CONTENT_REMOVED',
  'DECISION_VISIBILITY_CONTENT_DISABLED',
  'DECISION_VISIBILITY_CONTENT_DEMOTED',
  'DECISION_VISIBILITY_CONTENT_AGE_RESTRICTED',
  'DECISION_VISIBILITY_CONTENT_INTERACTION_RESTRICTED',
  'DECISION_VISIBILITY_CONTENT_LABELLED',
  'DECISION_VISIBILITY_OTHER',
];
export const DECISION_ACCOUNTS = ['DECISION_ACCOUNT_SUSPENDED', 'DECISION_ACCOUNT_TERMINATED'];
const DECISION_GROUNDS = ['DECISION_GROUND_ILLEGAL_CONTENT', 'DECISION_GROUND_INCOMPATIBLE_CONTENT'];
const CONTENT_TYPES = ['CONTENT_TYPE_APP', 'CONTENT_TYPE_AUDIO', 'CONTENT_TYPE_PRODUCT', 'CONTENT_TYPE_SYNTHETIC_MEDIA', 'CONTENT_TYPE_TEXT', 'CONTENT_TYPE_VIDEO', 'CONTENT_TYPE_IMAGE', 'CONTENT_TYPE_OTHER'];
const SOURCE_TYPES = ['SOURCE_ARTICLE_16', 'SOURCE_TRUSTED_FLAGGER', 'SOURCE_VOLUNTARY', 'SOURCE_TYPE_OTHER_NOTIFICATION'];
const AUTOMATED_DETECTIONS = ['Yes', 'No'];
const AUTOMATED_DECISIONS = ['AUTOMATED_DECISION_FULLY', 'AUTOMATED_DECISION_PARTIALLY', 'AUTOMATED_DECISION_NOT_AUTOMATED'];
const ACCOUNT_TYPES = ['ACCOUNT_TYPE_BUSINESS', 'ACCOUNT_TYPE_PRIVATE'];
const INCOMPATIBLE_ILLEGALS = ['Yes', 'No'];
const COUNTRIES = ['AT', 'BE', 'BG', 'CY', 'CZ', 'DE', 'DK', 'EE', 'ES', 'FI', 'FR', 'GR', 'HR', 'HU', 'IE', 'IS', 'IT', 'LI', 'LT', 'LU', 'LV', 'MT', 'NL', 'NO', 'PL', 'PT', 'RO', 'SE', 'SI', 'SK'];
/** The languages this service writes in, of the database's list (EuropeanLanguagesService::ALL_LANGUAGES, upper case). */
const LANGUAGES = ['EN', 'FR', 'DE', 'ES'];

const KNOWN = new Set([
  'decision_visibility',
  'decision_visibility_other',
  'decision_account',
  'account_type',
  'decision_ground',
  'decision_ground_reference_url',
  'illegal_content_legal_ground',
  'illegal_content_explanation',
  'incompatible_content_ground',
  'incompatible_content_explanation',
  'incompatible_content_illegal',
  'content_type',
  'category',
  'territorial_scope',
  'content_language',
  'content_date',
  'application_date',
  'end_date_account_restriction',
  'end_date_visibility_restriction',
  'decision_facts',
  'source_type',
  'source_identity',
  'automated_detection',
  'automated_decision',
  'puid',
]);

export interface RuleError {
  field: string;
  rule: string;
}

const isDate = (v: unknown) => typeof v === 'string' && /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`));
const present = (v: unknown) => v !== undefined && v !== null && v !== '' && !(Array.isArray(v) && v.length === 0);
const maxLen = (v: unknown, n: number) => typeof v !== 'string' || [...v].length <= n;

/** Every rule one statement breaks (empty: the database would accept it). */
export function validateStatement(s: Record<string, unknown>): RuleError[] {
  const errors: RuleError[] = [];
  const fail = (field: string, rule: string) => errors.push({ field, rule });
  for (const k of Object.keys(s)) if (!KNOWN.has(k)) fail(k, 'unknown field');
  const arrayIn = (field: string, list: readonly string[]) => {
    const v = s[field];
    if (v === undefined || v === null) return;
    if (!Array.isArray(v) || v.some((x) => !list.includes(x as string))) fail(field, `array of ${list.join(', ')}`);
  };
  const oneOf = (field: string, list: readonly string[]) => {
    const v = s[field];
    if (v !== undefined && v !== null && !list.includes(v as string)) fail(field, `one of ${list.join(', ')}`);
  };
  const required = (field: string) => {
    if (!present(s[field])) fail(field, 'required');
  };

  // decision_*: at least one of the four kinds of restriction (required_without_all).
  if (!['decision_visibility', 'decision_monetary', 'decision_provision', 'decision_account'].some((f) => present(s[f]))) fail('decision_visibility', 'required without any other decision');
  arrayIn('decision_visibility', DECISION_VISIBILITIES);
  const visibilityOther = Array.isArray(s.decision_visibility) && (s.decision_visibility as string[]).includes('DECISION_VISIBILITY_OTHER');
  if (visibilityOther) required('decision_visibility_other');
  else if (s.decision_visibility_other !== undefined) fail('decision_visibility_other', 'excluded unless decision_visibility has DECISION_VISIBILITY_OTHER');
  if (!maxLen(s.decision_visibility_other, 500)) fail('decision_visibility_other', 'max 500');
  oneOf('decision_account', DECISION_ACCOUNTS);
  oneOf('account_type', ACCOUNT_TYPES);

  required('decision_ground');
  oneOf('decision_ground', DECISION_GROUNDS);
  if (s.decision_ground_reference_url != null) {
    let ok = typeof s.decision_ground_reference_url === 'string' && maxLen(s.decision_ground_reference_url, 500);
    try {
      if (ok) new URL(s.decision_ground_reference_url as string);
    } catch {
      ok = false;
    }
    if (!ok) fail('decision_ground_reference_url', 'url, max 500');
  }
  const illegal = s.decision_ground === 'DECISION_GROUND_ILLEGAL_CONTENT';
  const incompatible = s.decision_ground === 'DECISION_GROUND_INCOMPATIBLE_CONTENT';
  for (const [f, n] of [
    ['illegal_content_legal_ground', 500],
    ['illegal_content_explanation', 2000],
  ] as const) {
    if (illegal) required(f);
    else if (s[f] !== undefined) fail(f, 'excluded unless decision_ground is DECISION_GROUND_ILLEGAL_CONTENT');
    if (!maxLen(s[f], n)) fail(f, `max ${n}`);
  }
  for (const [f, n] of [
    ['incompatible_content_ground', 500],
    ['incompatible_content_explanation', 2000],
  ] as const) {
    if (incompatible) required(f);
    else if (s[f] !== undefined) fail(f, 'excluded unless decision_ground is DECISION_GROUND_INCOMPATIBLE_CONTENT');
    if (!maxLen(s[f], n)) fail(f, `max ${n}`);
  }
  if (s.incompatible_content_illegal !== undefined && !incompatible) fail('incompatible_content_illegal', 'excluded unless incompatible');
  oneOf('incompatible_content_illegal', INCOMPATIBLE_ILLEGALS);

  required('content_type');
  arrayIn('content_type', CONTENT_TYPES);
  required('category');
  oneOf('category', CATEGORIES);
  arrayIn('territorial_scope', COUNTRIES);
  oneOf('content_language', LANGUAGES);

  required('content_date');
  if (present(s.content_date) && (!isDate(s.content_date) || (s.content_date as string) < '2000-01-01' || (s.content_date as string) > '2038-01-01')) fail('content_date', 'Y-m-d, 2000-01-01 to 2038-01-01');
  required('application_date');
  if (present(s.application_date) && (!isDate(s.application_date) || (s.application_date as string) < '2020-01-01' || (s.application_date as string) > '2038-01-01'))
    fail('application_date', 'Y-m-d, 2020-01-01 to 2038-01-01');
  for (const f of ['end_date_account_restriction', 'end_date_visibility_restriction']) {
    if (s[f] != null && (!isDate(s[f]) || (s[f] as string) > '2038-01-01')) fail(f, 'Y-m-d, before 2038-01-01');
  }

  required('decision_facts');
  if (!maxLen(s.decision_facts, 5000)) fail('decision_facts', 'max 5000');
  required('source_type');
  oneOf('source_type', SOURCE_TYPES);
  if (s.source_type === 'SOURCE_VOLUNTARY' && s.source_identity !== undefined) fail('source_identity', 'excluded for SOURCE_VOLUNTARY');
  if (!maxLen(s.source_identity, 500)) fail('source_identity', 'max 500');
  required('automated_detection');
  oneOf('automated_detection', AUTOMATED_DETECTIONS);
  required('automated_decision');
  oneOf('automated_decision', AUTOMATED_DECISIONS);
  required('puid');
  if (present(s.puid) && (typeof s.puid !== 'string' || !maxLen(s.puid, 500) || !/^[a-zA-Z0-9-_]+$/.test(s.puid))) fail('puid', 'max 500, letters, digits, - and _');
  return errors;
}
