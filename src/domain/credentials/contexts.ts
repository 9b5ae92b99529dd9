// Every JSON-LD context a credential of ours names, pinned in the repository: signing and verifying canonicalize
// through these (RDFC-1.0), so a context fetched at run time could change what a signature covers, or fail. The
// loader answers only these and the documents it is handed; anything else is an error, never a request.
import credentialsV2 from './contexts/credentials-v2.json' with { type: 'json' };
import openBadgesV3 from './contexts/ob-v3p0-3.0.3.json' with { type: 'json' };
import multikeyV1 from './contexts/multikey-v1.json' with { type: 'json' };
import didV1 from './contexts/did-v1.json' with { type: 'json' };

export const VC_V2_CONTEXT = 'https://www.w3.org/ns/credentials/v2';
/** Open Badges 3.0, its last context revision (3.0.3), which works beside VC 2.0's. */
export const OB_V3_CONTEXT = 'https://purl.imsglobal.org/spec/ob/v3p0/context-3.0.3.json';
export const MULTIKEY_V1_CONTEXT = 'https://w3id.org/security/multikey/v1';
export const DID_V1_CONTEXT = 'https://www.w3.org/ns/did/v1';

export const PINNED_CONTEXTS: ReadonlyMap<string, unknown> = new Map<string, unknown>([
  [VC_V2_CONTEXT, credentialsV2],
  [OB_V3_CONTEXT, openBadgesV3],
  [MULTIKEY_V1_CONTEXT, multikeyV1],
  [DID_V1_CONTEXT, didV1],
]);

export interface RemoteDocument {
  contextUrl: null;
  documentUrl: string;
  document: unknown;
}

export type DocumentLoader = (url: string) => Promise<RemoteDocument>;

/**
 * A loader over the pinned contexts and the given documents (the DID document, its key, a status list), by URL; a
 * `#fragment` of a given document is the entry of its `verificationMethod` with that id.
 */
export function documentLoader(documents: ReadonlyMap<string, unknown> = new Map()): DocumentLoader {
  return async (url: string) => {
    const doc = PINNED_CONTEXTS.get(url) ?? documents.get(url) ?? fragment(documents, url);
    if (doc === undefined) throw new Error(`document not available offline: ${url}`);
    return { contextUrl: null, documentUrl: url, document: doc };
  };
}

function fragment(documents: ReadonlyMap<string, unknown>, url: string): unknown {
  const hash = url.indexOf('#');
  if (hash < 0) return undefined;
  const parent = documents.get(url.slice(0, hash)) as { verificationMethod?: Array<{ id: string }> } | undefined;
  const method = parent?.verificationMethod?.find((m) => m.id === url);
  // A key on its own is read in the Multikey context (jsonld-signatures checks its type and controller).
  return method ? { '@context': MULTIKEY_V1_CONTEXT, ...method } : undefined;
}
