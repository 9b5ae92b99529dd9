// Public addresses of records, profiles and proofs (SPEC §12), shared by every presenter.
export const recordUrl = (siteUrl: string, pageId: number) => `${siteUrl}/records/${pageId}`;
export const profileUrl = (siteUrl: string, username: string) => `${siteUrl}/contributors/${encodeURIComponent(username)}`;
export const proofUrl = (siteUrl: string, contributionId: number) => `${siteUrl}/proofs/${contributionId}`;
export const contributionRef = (id: number) => `ctb_${id}`;
/** The inclusion proof of transparency-log entry `index` (seq − 1 of its `changes` row). */
export const logProofUrl = (siteUrl: string, index: number) => `${siteUrl}/v1/log/proof/inclusion?index=${index}`;
/** The page that shows transparency-log entry `index` and checks it in the reader's browser. */
export const logEntryUrl = (siteUrl: string, index: number) => `${siteUrl}/log/${index}`;
export const logBundleUrl = (siteUrl: string, index: number) => `${siteUrl}/v1/log/proof/bundle?index=${index}`;
/** Where a profile's scores are explained, each with its sum. */
export const scoresUrl = (siteUrl: string, username: string) => `${siteUrl}/contributors/${encodeURIComponent(username)}/scores`;
