// The shape rules of an account, shared by the HTTP schemas and the CLI.
export const USERNAME_PATTERN = '^(?=.*[a-z])[a-z0-9](?:[a-z0-9-]{1,38}[a-z0-9])$';
export const SLUG_PATTERN = USERNAME_PATTERN;
// Linear: no part of the domain can be matched two ways, so a hostile address cannot make it backtrack.
export const EMAIL_PATTERN = '^[^@\\s]{1,64}@[^@\\s.]+(\\.[^@\\s.]+)+$';
export const PASSWORD_MIN = 10;
// scrypt's cost does not grow with length, but nobody needs more, and it bounds the work per login.
export const PASSWORD_MAX = 200;
export const SESSION_DAYS = 30;

export const normaliseEmail = (email: string) => email.trim().toLowerCase();
export const normaliseTopic = (topic: string) => topic.trim().toLowerCase().replace(/\s+/g, '-');

/**
 * Whose work erased people's accepted work becomes: one shared account that names nobody, so the pages'
 * history stays whole without tying the erased person's works to each other. Never signs in, never scores, has no
 * profile; its username can never be taken.
 */
export const FORMER_CONTRIBUTOR = { username: 'former-contributor', name: 'A former contributor' } as const;
/** What a panel entry that was linked to an erased account says instead of their name. */
export const FORMER_PANEL_MEMBER = 'A former panel member';
