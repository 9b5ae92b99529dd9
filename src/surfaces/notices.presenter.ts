// A page's notices as both surfaces show them on a record: the same fields on /v1 and /api/v1, newest
// first, each linked to the transparency-log entry that published it. Field by field.
import Type from 'typebox';
import type { Notice } from '../domain/pages/notices.js';
import { Nullable } from '../http/schemas.js';
import { LogLink, presentLogLink } from './log-link.js';
import { NoticeType, PageUrl } from './vocabulary.js';

export const NoticeEntry = Type.Object({
  id: Type.Integer(),
  type: NoticeType,
  date: Type.String({ format: 'date', description: 'The notice’s own date, YYYY-MM-DD' }),
  reason: Type.String(),
  url: Nullable({ ...PageUrl, description: 'The notice itself, on the publisher’s site; null when it has none' }),
  published_at: Type.String({ format: 'date-time', description: 'When the publisher gave it to Credence' }),
  log: LogLink,
});

export const Notices = Type.Array(NoticeEntry, { description: 'Every notice on the page, newest first (by date, then by when it was given); none is ever removed' });

export const presentNotices = (siteUrl: string, notices: Notice[]) =>
  notices.map((n) => ({
    id: n.id,
    type: n.type,
    date: n.notice_date,
    reason: n.reason,
    url: n.notice_url,
    published_at: n.created_at,
    log: presentLogLink(siteUrl, n.log_seq),
  }));
