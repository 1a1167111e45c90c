import { ThrownCode, ThrownCodes } from './support/thrown-codes';
import { ApiApp, startApiApp } from './support/api-app';
import { TestEnvironment, testEnvironment } from './support/environment';
import { servedRoutes } from './support/routes';

type Operation = { responses: Record<string, { content?: Record<string, { schema: { allOf?: Array<{ properties?: { code?: { enum?: string[] } } }> } }> }> };
type Document = { paths: Record<string, Record<string, Operation>> };

const declared = (operation: Operation, { status, code }: ThrownCode) =>
  (operation.responses[status]?.content?.['application/problem+json']?.schema.allOf?.[1]?.properties?.code?.enum ?? []).includes(code);

/** Answered as the HTML of the consent page (decision 0019) and of the privacy center (decision 0076), which the API document leaves out. */
const PAGE_ONLY = ['409 embed_session_already_used', '409 embed_session_expired', '409 privacy_center_session_expired', '409 privacy_center_session_ended'];

/** Answered by the console's pages in words of their own (docs/console.md), or by the CLI (a user that exists): by no operation of the API. */
const CONSOLE_ONLY = ['409 console_user_exists', '409 password_change_not_due', '409 sign_in_step_not_due', '429 console_user_locked'];

/** Thrown while the worker renders a report and recorded as its failure (`report_failed` on GET /v1/redec/reports/{reportId}). */
const WORKER_ONLY = ['409 report_layout_unavailable'];

/** Rules of a grant, reached by reading a decision: the read finishes recording a decision whose rules passed when it was accepted. */
const FINISHING_AN_ACCEPTED_DECISION = [
  '409 capture_is_embedded',
  '409 configuration_not_embedded',
  '409 consent_interaction_already_granted',
  '409 general_configuration_required',
  '409 internal_consent_code_unavailable',
  '409 redec_capture_is_embedded',
  '409 redec_configuration_required',
  '409 redec_interaction_already_granted',
  '409 regulatory_profile_unavailable',
];

/**
 * A command whose only write is the first fact of a stream (a grant, a
 * Multi-Consent decision, an internal code's claim) loses a race at most
 * once: its next attempt finds the fact recorded and answers from it.
 */
const FIRST_FACT_ONLY = ['409 concurrent_change'];

/** Refusals of the read model that a route answering from the ledger instead never passes on (decisions 0078, 0079). */
const READ_MODEL_REFUSALS = ['503 read_model_rebuilding', '503 read_model_unavailable'];

/** A configuration version by id is read from the ledger while the read model cannot answer: never refused for it. */
const CONFIGURATION_FROM_THE_LEDGER = READ_MODEL_REFUSALS;

/**
 * What the static reading reaches but the route cannot answer: a shared rule
 * that branches on what the route passes it (the purpose of an interaction,
 * how a grant is captured), or on a kind of protected value the route never
 * holds. Each line is checked to be still needed.
 */
const UNREACHABLE_IN_PRACTICE: Record<string, string[]> = {
  // "No such tenant" (the keyring's, or the settings' own), for a tenant id that is always an authenticated key's own.
  'POST /v1/customers/resolve': ['404 NOT_FOUND'],
  'POST /v1/redec/accesses/authorize': ['404 NOT_FOUND'],
  'GET /v1/tenant-settings': ['404 NOT_FOUND'],
  'PUT /v1/tenant-settings': ['404 NOT_FOUND'],
  'PUT /v1/tenant-settings/presentation': ['404 NOT_FOUND'],
  // The interaction's purpose is `redec`, `general` or `embedded` by route; its configuration comes from the ledger while the read model cannot answer.
  'POST /v1/redec/consent-interactions': ['409 configuration_not_embedded', '409 general_configuration_required', ...CONFIGURATION_FROM_THE_LEDGER],
  'POST /v1/consent-interactions': ['409 configuration_not_embedded', '409 redec_configuration_required', '409 regulatory_profile_unavailable', ...CONFIGURATION_FROM_THE_LEDGER],
  'POST /v1/embed/sessions': ['409 general_configuration_required', '409 redec_configuration_required'],
  // A grant through the API is captured externally: an embedded configuration is `…capture_is_embedded`, never `configuration_not_embedded`.
  'POST /v1/redec/consent-interactions/{interactionId}/grant': ['409 configuration_not_embedded'],
  'POST /v1/consent-interactions/{interactionId}/grant': ['409 configuration_not_embedded', ...FIRST_FACT_ONLY],
  // One command handler serves both annulments; only the annulment of an end needs an ended extension.
  'POST /v1/redec/consents/{redecConsentId}/credit-extensions/{creditExtensionId}/annul': ['409 redec_credit_extension_not_ended'],
  // A webhook secret is under the tenant's key, never a customer's; the endpoint a registration looks up is the one it has just recorded.
  'POST /v1/webhook-endpoints': ['404 NOT_FOUND', '409 customer_data_erased'],
  'POST /v1/webhook-endpoints/{endpointId}/rotate-secret': ['409 customer_data_erased'],
  'GET /v1/consent-decisions/{decisionId}': [...FINISHING_AN_ACCEPTED_DECISION, ...FIRST_FACT_ONLY],
  // A rights request's description whose customer's key was destroyed is read as null, never refused; reading one records nothing.
  'GET /v1/rights-requests/{rightsRequestId}': ['409 concurrent_change', '409 customer_data_erased'],
  'GET /v1/rights-requests/{rightsRequestId}/subject-report': ['409 concurrent_change', '409 customer_data_erased'],
  // An answer renders the subject's report only for an access or portability request.
  'POST /v1/rights-requests/{rightsRequestId}/transitions': ['409 customer_data_erased', '409 rights_request_without_subject_report'],
  'GET /v1/embed/sessions/{sessionId}': [...FINISHING_AN_ACCEPTED_DECISION, ...FIRST_FACT_ONLY],
  // While the read model cannot answer, a consent by id is answered from its own stream.
  'GET /v1/redec/consents/{redecConsentId}': READ_MODEL_REFUSALS,
  'GET /v1/configurations/{configurationId}': CONFIGURATION_FROM_THE_LEDGER,
};

describe('the OpenAPI document declares every code the source can answer', () => {
  let environment: TestEnvironment;
  let api: ApiApp;
  let served: Document;
  let source: ThrownCodes;

  beforeAll(async () => {
    environment = testEnvironment();
    api = await startApiApp(environment);
    served = (await api.http.get('/openapi.json')).body as Document;
    source = new ThrownCodes();
  }, 180_000);
  afterAll(async () => {
    await api.close();
    await environment.dispose();
  });

  it('reads every code from the source: each is a literal (or a union of literals) at the call of the error helper', () => {
    const all = source.all().map(({ status, code }) => `${status} ${code}`);
    // The mapping is read, not assumed: the helpers' codes, by the status toProblem gives their kind.
    expect(all).toEqual(expect.arrayContaining(['409 concurrent_change', '410 report_content_erased', '422 redec_objective_not_granted', '503 banking_calendar_out_of_range']));
    expect([...source.unreadable]).toEqual([]);
  });

  it('declares each code thrown in apps/ and libs/ on some operation, with the status it is answered with', () => {
    const everywhere = Object.values(served.paths).flatMap((item) => Object.values(item));
    const undeclared = source
      .all()
      .filter((thrown) => !everywhere.some((operation) => declared(operation, thrown)))
      .map(({ status, code }) => `${status} ${code}`);
    expect(undeclared.sort()).toEqual([...PAGE_ONLY, ...CONSOLE_ONLY, ...WORKER_ONLY].sort());
  });

  it('declares on each operation every code its handler can reach, but for the branches listed as unreachable in practice', () => {
    const undeclared: Record<string, string[]> = {};
    for (const route of servedRoutes(api)) {
      const operation = served.paths[route.path]?.[route.method];
      if (!operation) continue;
      const missing = source
        .reachableFrom(route.controller, route.name)
        .filter((thrown) => !declared(operation, thrown))
        .map(({ status, code }) => `${status} ${code}`);
      if (missing.length > 0) undeclared[`${route.method.toUpperCase()} ${route.path}`] = missing.sort();
    }
    expect(undeclared).toEqual(Object.fromEntries(Object.entries(UNREACHABLE_IN_PRACTICE).map(([route, codes]) => [route, [...codes].sort()])));
  });
});
