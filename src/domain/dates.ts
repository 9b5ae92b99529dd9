// How Credence writes a date for people, everywhere (pages, the embed, mail): by Intl, in the reader's language,
// day, short month and year, in UTC (the record's dates are UTC days): "28 Nov 2026", "28 nov. 2026", "28. Nov. 2026".
// Machines get the ISO form beside it (<time datetime>, JSON). English is written day-first, as the site writes.
// Where the hour matters (a key's last use, a webhook attempt), the same date gains a 24-hour UTC time.

/** The language tag each of our languages is formatted with; others are used as given. */
const TAGS: Record<string, string> = { en: 'en-GB' };

// Building an Intl formatter costs far more than using one: one per language, made on first use.
const formatters = new Map<string, Intl.DateTimeFormat>();
const DAY: Intl.DateTimeFormatOptions = { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' };
const MOMENT: Intl.DateTimeFormatOptions = { ...DAY, hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZoneName: 'short' };

function formatterFor(lang: string, withTime = false): Intl.DateTimeFormat {
  const key = `${lang}${withTime ? ' time' : ''}`;
  let f = formatters.get(key);
  if (!f) {
    let tag = TAGS[lang] ?? lang;
    if (!Intl.DateTimeFormat.supportedLocalesOf([tag]).length) tag = 'en-GB';
    f = new Intl.DateTimeFormat(tag, withTime ? MOMENT : DAY);
    formatters.set(key, f);
  }
  return f;
}

/** A timestamp or a `YYYY-MM-DD` day as a Date, or null when it is neither. */
export function parseDay(iso: string): Date | null {
  const when = new Date(/^\d{4}-\d{2}-\d{2}$/.test(iso) ? `${iso}T00:00:00.000Z` : iso);
  return Number.isNaN(when.getTime()) ? null : when;
}

/** `2026-11-28` or `2026-11-28T10:00:00Z` as people read it in `lang` ("28 Nov 2026"); anything unreadable as given. */
export function formatDay(iso: string, lang = 'en'): string {
  const when = parseDay(iso);
  return when ? formatterFor(lang).format(when) : iso;
}

/** A timestamp with its hour as people read it in `lang` ("28 Nov 2026, 10:00 UTC"); anything unreadable as given. */
export function formatMoment(iso: string, lang = 'en'): string {
  const when = parseDay(iso);
  return when ? formatterFor(lang, true).format(when) : iso;
}
