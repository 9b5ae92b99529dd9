// A publisher's share of an extension bucket (docs/decisions/extension-bucket-share.md). Every reader whose page
// hashes into a bucket downloads all of it, and a publisher chooses its paths: by grinding paths into one prefix and
// posting long notices it could make that bucket, and its proofs, as large as it liked. So each publisher's records in
// a bucket are listed until they would pass BUCKET_SHARE_BYTES; the rest are counted, not listed, and the bucket says
// whose they are, so a reader on such a page is never told "no record" (docs/extension.md).

/** What one publisher's records in one bucket may cost, its entries and their proofs together: 128 KB. */
export const BUCKET_SHARE_BYTES = 128 * 1024;

/**
 * A proof beside the entry's own bytes, for each log entry a record cites: the inclusion path (up to 32 hashes of 44
 * base64 characters) and the answer's framing, rounded up.
 */
export const PROOF_FRAME_BYTES = 2048;

export interface ShareCandidate {
  publisherId: number;
  /** The record's standing is other than current: a reader must be told first. */
  flagged: boolean;
  /** The newest accepted work or notice, as stored (ISO text or date); later first. */
  newest: string;
  hash: string;
  /** Bytes of the record's entry in the bucket's answer. */
  entryBytes: number;
  /** Bytes of the page's URL, which each cited log entry carries again. */
  urlBytes: number;
  /** Log entries the record cites (each has a proof in the proofs answer). */
  cited: number;
}

/**
 * What a record costs its publisher's share: its entry, plus for each log entry it cites a proof frame and the page's
 * URL as base64, plus the entry's text once more as base64 (a log entry holds what the record shows of it: the
 * notice's reason and link, the work's role and date).
 */
export const shareCost = (c: Pick<ShareCandidate, 'entryBytes' | 'urlBytes' | 'cited'>): number =>
  c.entryBytes + Math.ceil((4 * c.entryBytes) / 3) + c.cited * (PROOF_FRAME_BYTES + Math.ceil((4 * c.urlBytes) / 3));

/**
 * Which records a bucket lists: each publisher's, flagged first, then the most recently changed, then by hash (a
 * stable order, so a bucket and its proofs, computed apart, choose alike), until the next would pass `share`. The
 * rest are withheld, by publisher. A publisher's choice of paths can only push out its own records.
 */
export function shareOut<C extends ShareCandidate>(candidates: C[], share = BUCKET_SHARE_BYTES): { listed: C[]; withheld: Map<number, C[]> } {
  const byPublisher = new Map<number, C[]>();
  for (const c of candidates) byPublisher.set(c.publisherId, [...(byPublisher.get(c.publisherId) ?? []), c]);
  const listed: C[] = [];
  const withheld = new Map<number, C[]>();
  for (const [publisherId, list] of byPublisher) {
    list.sort((a, b) => Number(b.flagged) - Number(a.flagged) || (a.newest === b.newest ? (a.hash < b.hash ? -1 : 1) : a.newest < b.newest ? 1 : -1));
    let spent = 0;
    for (const [i, c] of list.entries()) {
      const cost = shareCost(c);
      if (spent + cost > share) {
        // Once one does not fit, none after it is listed: a smaller record later in the order would jump the queue.
        withheld.set(publisherId, list.slice(i));
        break;
      }
      spent += cost;
      listed.push(c);
    }
  }
  return { listed, withheld };
}
