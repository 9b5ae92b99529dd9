// The Digital Bazaar VC stack ships JavaScript without types; these name only what credentials/ calls.
declare module '@digitalbazaar/vc' {
  export function issue(opts: { credential: object; suite: unknown; documentLoader: unknown; now?: Date }): Promise<Record<string, unknown>>;
  export function verifyCredential(opts: {
    credential: object;
    suite: unknown;
    documentLoader: unknown;
    checkStatus?: (opts: { credential: object; documentLoader: unknown; suite: unknown }) => Promise<unknown>;
    now?: Date;
  }): Promise<{ verified: boolean; error?: { message?: string; errors?: Array<{ message?: string }> }; results?: Array<{ verified: boolean; error?: { message?: string } }>; statusResult?: StatusResult }>;
  export interface StatusResult {
    verified: boolean;
    error?: { message?: string };
    results?: Array<{ verified: boolean; status: boolean; credentialStatus: object }>;
  }
}
declare module '@digitalbazaar/ed25519-multikey' {
  export interface KeyPair {
    id?: string;
    controller?: string;
    signer(): { id: string; algorithm: string; sign(o: { data: Uint8Array }): Promise<Uint8Array> };
    export(opts: { publicKey?: boolean; secretKey?: boolean; includeContext?: boolean }): Promise<{ publicKeyMultibase: string }>;
  }
  export function fromJwk(opts: { jwk: object; secretKey?: boolean; id?: string; controller?: string }): Promise<KeyPair>;
  export function from(key: object): Promise<KeyPair>;
  export function toJwk(opts: { keyPair: KeyPair; secretKey?: boolean }): Promise<Record<string, unknown>>;
}
declare module '@digitalbazaar/data-integrity' {
  export class DataIntegrityProof {
    constructor(opts: { signer?: unknown; cryptosuite: unknown; date?: Date | string });
  }
}
declare module '@digitalbazaar/eddsa-rdfc-2022-cryptosuite' {
  export const cryptosuite: unknown;
}
declare module '@digitalbazaar/vc-bitstring-status-list' {
  export function checkStatus(opts: { credential: object; documentLoader: unknown; suite: unknown; verifyMatchingIssuers?: boolean; verifyStatusListCredential?: boolean }): Promise<import('@digitalbazaar/vc').StatusResult>;
}
declare module '@digitalbazaar/vc-bitstring-status-list' {
  export class BitstringStatusList {
    constructor(opts: { length: number });
    setStatus(index: number, status: boolean): void;
    encode(): Promise<string>;
  }
}
