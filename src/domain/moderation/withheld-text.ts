// The text that stands where a restricted field's was. It is stored (in the item's row and in the payloads that
// copied it) and so read by every surface as the record's own text, in the record's language like every stored
// title and summary: the one sentence the domain writes, because a stored byte has no request to take a language from.
import type { Category } from './rules.js';

const CATEGORY_WORDS: Record<Category, string> = {
  STATEMENT_CATEGORY_ANIMAL_WELFARE: 'animal welfare',
  STATEMENT_CATEGORY_CONSUMER_INFORMATION: 'consumer information infringement',
  STATEMENT_CATEGORY_CYBER_VIOLENCE: 'cyber violence',
  STATEMENT_CATEGORY_CYBER_VIOLENCE_AGAINST_WOMEN: 'cyber violence against women',
  STATEMENT_CATEGORY_DATA_PROTECTION_AND_PRIVACY_VIOLATIONS: 'data protection and privacy',
  STATEMENT_CATEGORY_ILLEGAL_OR_HARMFUL_SPEECH: 'illegal or harmful speech',
  STATEMENT_CATEGORY_INTELLECTUAL_PROPERTY_INFRINGEMENTS: 'intellectual property',
  STATEMENT_CATEGORY_NEGATIVE_EFFECTS_ON_CIVIC_DISCOURSE_OR_ELECTIONS: 'civic discourse or elections',
  STATEMENT_CATEGORY_NOT_SPECIFIED_NOTICE: 'unspecified',
  STATEMENT_CATEGORY_OTHER_VIOLATION_TC: 'against the terms',
  STATEMENT_CATEGORY_PROTECTION_OF_MINORS: 'protection of minors',
  STATEMENT_CATEGORY_RISK_FOR_PUBLIC_SECURITY: 'public security',
  STATEMENT_CATEGORY_SCAMS_AND_FRAUD: 'scams or fraud',
  STATEMENT_CATEGORY_SELF_HARM: 'self-harm',
  STATEMENT_CATEGORY_UNSAFE_AND_PROHIBITED_PRODUCTS: 'unsafe or prohibited products',
  STATEMENT_CATEGORY_VIOLENCE: 'violence',
};

export const categoryWords = (c: string): string => CATEGORY_WORDS[c as Category] ?? c;

/** "Removed after a report: <category> (<the decision's address>)": the link goes wherever the text goes. */
export const removedText = (siteUrl: string, category: string, decisionId: number): string =>
  `Removed after a report: ${categoryWords(category)} (${siteUrl}/decisions/${decisionId})`;
