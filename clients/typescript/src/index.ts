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

/** One page of a list: its items, and the cursor of the next page (null on the last). */
interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** An answer of openapi-fetch: the body, or the problem and the response that refused it. */
interface Answer<T> {
  data?: Page<T>;
  error?: unknown;
  response: Response;
}

/**
 * Every item of a paged list, in its order, asking for the next page (by
 * `pageAt(cursor)`, no cursor for the first) once the previous one is
 * consumed; a refusal throws a `ProblemError`. What every list helper below shares.
 */
async function* everyItem<T>(pageAt: (cursor: string | undefined) => Promise<Answer<T>>): AsyncGenerator<T, void, undefined> {
  let cursor: string | undefined;
  do {
    const { data, error, response } = await pageAt(cursor);
    if (data === undefined) throw new ProblemError(response.status, error as Problem | undefined);
    yield* data.items;
    cursor = data.nextCursor ?? undefined;
  } while (cursor !== undefined);
}

/** Items per request, 1 to 200 (the service's default is 50). */
export interface PageOptions {
  limit?: number;
}

export interface ExportConsentsOptions extends PageOptions {
  /** Start after this instant (epoch ms): the largest `updatedAt` of the previous run gives what changed since. */
  updatedAfter?: number;
}

/**
 * Every consent of the tenant (`GET /v1/redec/consent-exports`, scope
 * `consent:read`) in the export's order, `updatedAt` then id. A consent that
 * changes meanwhile shows again later.
 */
export function exportConsents(ledger: LedgerClient, { updatedAfter, limit }: ExportConsentsOptions = {}): AsyncGenerator<ExportedConsent, void, undefined> {
  // updatedAfter only starts an export: the service refuses it beside a cursor, which already says where the export is.
  return everyItem((cursor) =>
    ledger.GET('/v1/redec/consent-exports', {
      params: { query: cursor === undefined ? { limit, updatedAfter: updatedAfter === undefined ? undefined : String(updatedAfter) } : { limit, cursor } },
    }),
  );
}

/** An authorization that facts reported later contradict. */
export type ContradictedAccess = components['schemas']['ContradictedDecisionDto'];

/** Every authorization of the tenant that facts reported later contradict (`GET /v1/redec/accesses/contradicted`, scope `consent:read`). */
export function contradictedAccesses(ledger: LedgerClient, { limit }: PageOptions = {}): AsyncGenerator<ContradictedAccess, void, undefined> {
  return everyItem((cursor) => ledger.GET('/v1/redec/accesses/contradicted', { params: { query: { limit, cursor } } }));
}

/** A grant or revocation whose notification evidence is overdue. */
export type OverdueNotification = components['schemas']['OverdueNotificationDto'];

/** Every notification overdue by more than `afterBankingDays` banking days (`GET /v1/redec/notifications/overdue`, scope `consent:read`). */
export function overdueNotifications(ledger: LedgerClient, { afterBankingDays, limit }: PageOptions & { afterBankingDays: number }): AsyncGenerator<OverdueNotification, void, undefined> {
  return everyItem((cursor) => ledger.GET('/v1/redec/notifications/overdue', { params: { query: { afterBankingDays, limit, cursor } } }));
}

/** A reportable obligation to reconcile with the bank's books. */
export type ObligationToReconcile = components['schemas']['ObligationToReconcileDto'];

/** Every reportable obligation to reconcile (`GET /v1/redec/reportable-obligations/reconciliation`, scope `consent:read`). */
export function obligationsToReconcile(ledger: LedgerClient, { limit }: PageOptions = {}): AsyncGenerator<ObligationToReconcile, void, undefined> {
  return everyItem((cursor) => ledger.GET('/v1/redec/reportable-obligations/reconciliation', { params: { query: { limit, cursor } } }));
}

/** One delivery attempt to a webhook endpoint. */
export type WebhookDelivery = components['schemas']['WebhookDeliveryDto'];

/** Every delivery attempt to an endpoint, newest first (`GET /v1/webhook-endpoints/{endpointId}/deliveries`, scope `consent:admin` or `consent:read`). */
export function webhookDeliveries(ledger: LedgerClient, endpointId: string, { limit }: PageOptions = {}): AsyncGenerator<WebhookDelivery, void, undefined> {
  return everyItem((cursor) => ledger.GET('/v1/webhook-endpoints/{endpointId}/deliveries', { params: { path: { endpointId }, query: { limit, cursor } } }));
}
