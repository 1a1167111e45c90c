import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './ledger-api';

export type { components, operations, paths } from './ledger-api';

/** The consent ledger's /v1 API: `GET`, `POST`, `PUT` and `DELETE` by path, every body and answer typed from the document. */
export type LedgerClient = Client<paths>;

/** Every refusal (RFC 9457 problem+json): `status`, `title`, `code`, `detail`, and `reason` and `errors` where relevant. */
export type Problem = components['schemas']['Problem'];

export interface LedgerClientOptions {
  /** Where the service answers: its LEDGER_PUBLIC_URL, e.g. `https://consent.bank.example`. */
  baseUrl: string;
  /** An API key from `ledger key issue`, sent on every request as `Authorization: Bearer`. */
  apiKey: string;
  /** A fetch of your own (a proxy agent, a test double); the global one otherwise. */
  fetch?: (request: Request) => Promise<Response>;
}

/**
 * A client of one tenant, by its API key. Operations that require an
 * `Idempotency-Key` do not compile without one in `params.header`; reuse
 * the key when retrying the same request.
 */
export function createLedgerClient({ baseUrl, apiKey, fetch }: LedgerClientOptions): LedgerClient {
  return createClient<paths>({ baseUrl, fetch, headers: { Authorization: `Bearer ${apiKey}` } });
}
