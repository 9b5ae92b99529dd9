// The public shapes of the transparency log (/v1/log): proofs and entries as JSON with base64 hashes, and the
// `log` link every published record carries.
import Type from 'typebox';
import type { ConsistencyProof, InclusionProof, LogEntry } from '../../domain/transparency/log.service.js';
import { Nullable } from '../../http/schemas.js';
import { ChangeKind } from '../vocabulary.js';

const B64 = (description: string) => Type.String({ description, contentEncoding: 'base64' });

export const V1InclusionProof = Type.Object({
  index: Type.Integer({ description: 'The entry’s index in the log (its change’s seq − 1)' }),
  tree_size: Type.Integer({ description: 'The size of the tree the proof is for' }),
  leaf_hash: B64('SHA-256(0x00 || entry body), as stored; a verifier recomputes it from the entry'),
  hashes: Type.Array(B64('A node of the audit path (RFC 9162 §2.1.3), leaf side first')),
  checkpoint: Nullable(Type.String({ description: 'The signed checkpoint of tree_size (C2SP tlog-checkpoint note), when one was issued' })),
});

export const V1ConsistencyProof = Type.Object({
  first: Type.Integer(),
  second: Type.Integer(),
  hashes: Type.Array(B64('A node of the consistency proof (RFC 9162 §2.1.4)')),
  checkpoint: Nullable(Type.String({ description: 'The signed checkpoint of `second`, when one was issued' })),
});

/**
 * The openings of an entry's committed personal fields, by the JSON Pointer of each commitment in the body.
 * base64(HMAC-SHA256(opening, canonical JSON of value)) is the commitment; an erased person's openings are gone, so
 * the pointer is absent while the body keeps its commitment. docs/transparency.md, "Entries".
 */
export const Openings = Type.Record(
  Type.String({ description: 'A JSON Pointer into the entry’s body, e.g. `/contributor`' }),
  Type.Object({
    opening: B64('The 32-byte HMAC-SHA256 key of the commitment'),
    value: Type.Unknown({
      description: 'The committed value: a person slot’s public fields (an object, whose own free text may be commitments opened at deeper pointers), or one field of free text (a string)',
    }),
  }),
  {
    description:
      'Beside the entry, not part of its bytes: what opens each commitment in the body (or in an opened value), while the person it names has not been erased and no decision withheld it',
  },
);

/** What decisions withheld in an entry: JSON Pointer → the decision's id (its `moderation.decided` entry names it too). */
export const Withheld = Type.Record(Type.String({ description: 'A JSON Pointer into the entry’s body, e.g. `/contribution/summary`' }), Type.Integer({ description: 'The decision’s id' }), {
  description:
    'Text a decision withheld: a commitment whose opening is no longer served, or (in an entry written before free text was committed to) clear text taken out of the served body and replaced by `{"withheld": <decision id>}`',
});

export const V1LogEntry = Type.Object({
  index: Type.Integer(),
  seq: Type.Integer({ description: 'The change’s sequence number (index + 1), as in the change feed' }),
  created_at: Type.String({ format: 'date-time' }),
  kind: ChangeKind,
  body: Type.String({
    description: 'The entry’s exact bytes (canonical JSON, UTF-8): the leaf is SHA-256(0x00 || body); unless `leaf_hash` is given (clear text withheld), then the entry without it',
  }),
  openings: Openings,
  withheld: Type.Optional(Withheld),
  leaf_hash: Type.Optional(B64('Only when `body` is not the entry’s bytes (clear text withheld by a decision): the entry’s leaf hash, as the hash tiles hold it')),
});

export const V1LogEntries = Type.Object({
  data: Type.Array(V1LogEntry),
  meta: Type.Object({ start: Type.Integer(), count: Type.Integer(), tree_size: Type.Integer() }),
});

export const V1LogKey = Type.Object({
  origin: Type.String({ description: 'The log’s origin: the first line of every checkpoint and the key’s name' }),
  verifier_key: Type.String({ description: 'The current key in the note key format: name+hex(key hash)+base64(0x01 || Ed25519 public key)' }),
  algorithm: Type.Literal('Ed25519'),
  public_key: B64('The raw 32-byte Ed25519 public key'),
  key_hash: Type.String({ description: 'The note key hash, 4 bytes in hex' }),
  history: Type.Array(
    Type.Object({
      verifier_key: Type.String(),
      first_tree_size: Type.Integer(),
      last_tree_size: Type.Integer(),
      first_signed_at: Type.String({ format: 'date-time' }),
    }),
    { description: 'Every key that has signed checkpoints of this log, oldest first (rotations)' },
  ),
});

export const presentInclusion = (p: InclusionProof, checkpoint: string | null) => ({
  index: p.index,
  tree_size: p.treeSize,
  leaf_hash: p.leafHash.toString('base64'),
  hashes: p.hashes.map((h) => h.toString('base64')),
  checkpoint,
});

export const presentConsistency = (p: ConsistencyProof, checkpoint: string | null) => ({
  first: p.first,
  second: p.second,
  hashes: p.hashes.map((h) => h.toString('base64')),
  checkpoint,
});

export const presentEntry = (e: LogEntry) => ({
  index: e.index,
  seq: e.seq,
  created_at: e.createdAt,
  kind: e.kind,
  body: e.body.toString('utf8'),
  openings: e.openings,
  ...(Object.keys(e.withheld).length > 0 ? { withheld: e.withheld } : {}),
  ...(e.leafHash ? { leaf_hash: e.leafHash.toString('base64') } : {}),
});
