// A declared interest as every surface shows it: the owner's list, the public profile on both surfaces,
// a proof's related interests, a publisher's submissions. Field by field; the account id never appears.
import Type from 'typebox';
import { INTEREST_KINDS, INTEREST_SUBJECTS, type Interest } from '../domain/interests/interest.service.js';
import { Nullable, StringEnum } from '../http/schemas.js';

export const InterestSubject = StringEnum(INTEREST_SUBJECTS, { description: 'What the interest is in' });
export const InterestKind = StringEnum(INTEREST_KINDS, { description: 'What ties the person to it' });

export const InterestData = Type.Object({
  id: Type.Integer(),
  subject: InterestSubject,
  name: Type.String({ description: 'The organisation, the topic (normalised), or the publication’s name' }),
  publication: Nullable(Type.String({ description: 'The publication’s slug, for an interest in a publication' })),
  kind: InterestKind,
  note: Type.String({ description: 'What the person said about it; may be empty' }),
  declared_at: Type.String({ format: 'date-time' }),
  ended_at: Nullable(Type.String({ format: 'date-time', description: 'When the person ended the declaration; null while it holds' })),
});

export const presentInterest = (i: Interest) => ({
  id: i.id,
  subject: i.subject,
  name: i.name,
  publication: i.subject === 'publication' ? i.publisher_slug : null,
  kind: i.kind,
  note: i.note,
  declared_at: i.declared_at,
  ended_at: i.ended_at,
});
