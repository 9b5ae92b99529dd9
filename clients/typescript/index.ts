// A typed client of both Credence APIs. The types are generated from the service's OpenAPI documents
// (`npm run client:generate` writes api.d.ts and v1.d.ts beside this file); the calls go through openapi-fetch, so a
// path, a parameter, a body or an answer that does not match the contract is a compile error.
//
//   const api = createApiClient({ siteUrl: 'https://credence.example', token: process.env.CREDENCE_KEY });
//   const { data, error } = await api.GET('/pages/lookup', { params: { query: { url } } });
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { paths as ApiPaths, components as ApiComponents, operations as ApiOperations } from './api.js';
import type { paths as V1Paths, components as V1Components, operations as V1Operations } from './v1.js';

export type { ApiPaths, ApiComponents, ApiOperations, V1Paths, V1Components, V1Operations };

export interface CredenceOptions extends Omit<ClientOptions, 'baseUrl'> {
  /** The service's SITE_URL, without the surface: `https://credence.example`. */
  siteUrl: string;
  /** An API key (`cred_live_…`) or a session token, sent as `Authorization: Bearer`. */
  token?: string | undefined;
}

function options({ siteUrl, token, headers, ...rest }: CredenceOptions, surface: '/v1' | '/api/v1'): ClientOptions {
  return {
    ...rest,
    baseUrl: `${siteUrl.replace(/\/+$/, '')}${surface}`,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(headers as Record<string, string> | undefined) },
  };
}

/** A media type, as openapi-fetch reads one (`type/subtype`). */
type MediaType = `${string}/${string}`;

// `Media`: the media types an answer's `data` is typed from. JSON by default: an operation that also answers
// JSON-LD (`format=jsonld`, `Accept: application/ld+json`) or a script lists those too, and `data` would otherwise be
// the union of every form. Name another (`createV1Client<'application/ld+json'>(…)`) to type that form's answers.

/** The integration API (`/api/v1`): lookup, registration, requests, submissions, decisions, keys, webhooks. */
export const createApiClient = <Media extends MediaType = 'application/json'>(opts: CredenceOptions): Client<ApiPaths, Media> =>
  createClient<ApiPaths, Media>(options(opts, '/api/v1'));

/** The public API (`/v1`): page records, panels, profiles, requests, the log, the change feed, records and proofs. */
export const createV1Client = <Media extends MediaType = 'application/json'>(opts: CredenceOptions): Client<V1Paths, Media> =>
  createClient<V1Paths, Media>(options(opts, '/v1'));
