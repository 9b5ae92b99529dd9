// Lengths of people's text as the documents count them: in characters (Unicode code points), as JSON Schema's
// `maxLength` does (RFC 8259 strings; Ajv counts the same way), never in UTF-16 units, where an emoji counts twice.

/** The number of characters (code points) in `s`. */
export function characters(s: string): number {
  let n = 0;
  for (const _ of s) n += 1;
  return n;
}

/**
 * Text a person writes where the field is required (a name, a summary, a reason): at least one character that is not
 * a space, since the value is stored trimmed. Written to match whether anchored or not, so the same pattern serves
 * JSON Schema (a search) and an HTML form's `pattern` (the whole value).
 */
export const NON_BLANK_PATTERN = '[\\s\\S]*\\S[\\s\\S]*';
