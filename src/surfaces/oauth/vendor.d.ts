// The few parts of oidc-provider (which ships no types) this surface uses.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface InteractionDetails {
    uid: string;
    prompt: { name: string; details: Record<string, unknown> };
    params: Record<string, unknown> & { client_id: string; redirect_uri: string; scope?: string };
    session?: { accountId: string };
    grantId?: string;
  }
  export interface ClientRecord {
    clientId: string;
    clientName?: string;
    redirectUris: string[];
  }
  export interface GrantRecord {
    addResourceScope(resource: string, scope: string): void;
    save(): Promise<string>;
  }
  export const errors: { InvalidClientMetadata: new (description: string) => Error };
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    proxy: boolean;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
    interactionResult(req: IncomingMessage, res: ServerResponse, result: Record<string, unknown>, options?: { mergeWithLastSubmission?: boolean }): Promise<string>;
    Client: { find(id: string): Promise<ClientRecord | undefined> };
    Grant: new (init: { accountId: string; clientId: string }) => GrantRecord;
    on(event: string, listener: (...args: unknown[]) => void): void;
  }
}

// The provider's built-in development keys (public, in its source), which the tests check it never uses.
declare module 'oidc-provider/lib/consts/index.js' {
  export const DEV_KEYSTORE: { keys: Record<string, string>[] };
}
