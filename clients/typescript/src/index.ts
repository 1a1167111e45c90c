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

/** A consent as the auditors' export shows it: the regulatory representation, and `updatedAt` (epoch ms), when its last fact was recorded. */
export type ExportedConsent = components['schemas']['ExportedConsentDto'];

/** A call a helper of this client made was refused: the answer's status and its problem. */
export class ProblemError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem | undefined,
  ) {
    super(`${status} ${problem?.code ?? ''}: ${problem?.detail ?? ''}`);
    this.name = 'ProblemError';
  }
}

export interface ExportConsentsOptions {
  /** Start after this instant (epoch ms): the largest `updatedAt` of the previous run gives what changed since. */
  updatedAfter?: number;
  /** Consents per request, 1 to 200 (the service's default is 50). */
  limit?: number;
}

/**
 * Every consent of the tenant (`GET /v1/redec/consent-exports`, scope
 * `consent:read`) in the export's order, `updatedAt` then id, asking for the
 * next page once the previous one is consumed; a refusal throws a
 * `ProblemError`. A consent that changes meanwhile shows again later.
 */
export async function* exportConsents(ledger: LedgerClient, { updatedAfter, limit }: ExportConsentsOptions = {}): AsyncGenerator<ExportedConsent, void, undefined> {
  // updatedAfter only starts an export: the service refuses it beside a cursor, which already says where the export is.
  let query: NonNullable<paths['/v1/redec/consent-exports']['get']['parameters']['query']> = { limit, updatedAfter: updatedAfter === undefined ? undefined : String(updatedAfter) };
  for (;;) {
    const { data, error, response } = await ledger.GET('/v1/redec/consent-exports', { params: { query } });
    if (data === undefined) throw new ProblemError(response.status, error);
    yield* data.items;
    if (data.nextCursor === null) return;
    query = { limit, cursor: data.nextCursor };
  }
}
