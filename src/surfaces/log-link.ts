// The link from a published record (a contribution, a correction, a panel version) to its transparency-log entry,
// the same on every surface.
import Type from 'typebox';
import { Nullable } from '../http/schemas.js';
import { logBundleUrl, logProofUrl } from './urls.js';

export const LogLink = Nullable(
  Type.Object(
    {
      index: Type.Integer({ description: 'The entry’s index in the transparency log (its change’s seq − 1)' }),
      proof_url: Type.String({ format: 'uri', description: 'Its inclusion proof against the newest signed checkpoint' }),
      bundle_url: Type.String({
        format: 'uri',
        description: 'Its proof that travels: a C2SP tlog-proof file (the entry, its inclusion proof, the witnessed checkpoint with cosignatures) that checks offline',
      }),
    },
    { description: 'The transparency-log entry that published this; null for what was published before the log began' },
  ),
);

export const presentLogLink = (siteUrl: string, seq: number | null | undefined) =>
  seq === null || seq === undefined
    ? null
    : { index: Number(seq) - 1, proof_url: logProofUrl(siteUrl, Number(seq) - 1), bundle_url: logBundleUrl(siteUrl, Number(seq) - 1) };
