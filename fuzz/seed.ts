import { createHash, randomUUID } from 'node:crypto';
import { SCOPES } from '@ledger/platform';
import { Example, FuzzContext, TenantFixtures } from './fuzz-context';
import { LedgerFile } from './ledger-file';
import { Secret } from './leaks';
import { Random } from './random';
import { randomRut } from './rut';
import { ServiceEnvironment, runCli } from './service';
import { PUBLIC_HOST } from './values';

/**
 * Prepares the ledger the fuzzer attacks, as an operator and an integrator
 * would: tenants and keys with the operator CLI, then through the API, for
 * each of two tenants, configurations, customers with RUTs, interactions and
 * grants with evidence, a credit extension, a binding, accesses, a general
 * consent and a decision, an embed session and a webhook endpoint. The own
 * tenant's successful requests become the examples fuzzed requests start
 * from; the other tenant's ids are what a request must never reach.
 */
export interface Seeded {
  context: FuzzContext;
  /** Every secret seeding was shown once (keys, tokens, webhook secrets), and the master key. */
  secrets: Secret[];
  ruts: Array<{ label: string; rut: string }>;
}

const MINUTE = 60_000;
const EVIDENCE = Buffer.from('seeded evidence bytes');
const EVIDENCE_SHA256 = createHash('sha256').update(EVIDENCE).digest('hex');
/** The only origin the embedded configurations allow to frame their page and receive its result. */
export const INTEGRATOR_ORIGIN = 'https://bank.example';
/** RUTs the fuzzer sends beside the seeded customers' own. */
const EXTRA_RUTS = 6;

export async function seed(root: string, environment: ServiceEnvironment, baseUrl: string, random: Random): Promise<Seeded> {
  const cli = (args: string[]) => runCli(root, environment, args);
  const [own, other] = await Promise.all(['Banco Fuzz', 'Banco Ajeno'].map(async (name) => (await cli(['tenant', 'create', '--name', name])).tenantId as string));
  const issue = async (tenantId: string, scopes: readonly string[]) => (await cli(['key', 'issue', '--tenant', tenantId, '--scopes', scopes.join(',')])) as { apiKey: string; keyId: string };
  const [all, readOnly, revoked, otherKey] = await Promise.all([issue(own, SCOPES), issue(own, ['consent:read']), issue(own, SCOPES), issue(other, SCOPES)]);
  await cli(['key', 'revoke', '--key', revoked.keyId]);
  await waitForKey(baseUrl, all.apiKey);
  await waitForKey(baseUrl, otherKey.apiKey);

  const examples: Record<string, Example> = {};
  const sentValues = new Set<string>();
  const ownRuts = [randomRut(random), randomRut(random)];
  const otherRuts = [randomRut(random), randomRut(random)];
  const ownSeeded = await seedTenant(baseUrl, own, all.apiKey, ownRuts, examples, sentValues);
  const otherSeeded = await seedTenant(baseUrl, other, otherKey.apiKey, otherRuts, {}, sentValues);
  const extraRuts = Array.from({ length: EXTRA_RUTS }, () => randomRut(random));

  const secrets: Secret[] = [
    { label: 'API key (own tenant, every scope)', value: all.apiKey },
    { label: 'API key (own tenant, read only)', value: readOnly.apiKey },
    { label: 'API key (own tenant, revoked)', value: revoked.apiKey },
    { label: 'API key (other tenant)', value: otherKey.apiKey },
    { label: 'master key (hex)', value: environment.masterKey },
    { label: 'master key (base64)', value: Buffer.from(environment.masterKey, 'hex').toString('base64') },
    ...ownSeeded.secrets.map((secret) => ({ ...secret, label: `${secret.label} (own tenant)` })),
    ...otherSeeded.secrets.map((secret) => ({ ...secret, label: `${secret.label} (other tenant)` })),
    ...storedIdentifierSecrets(`${environment.dataDir}/ledger.sqlite`, sentValues),
  ];
  const ruts = [
    ...ownRuts.map((rut, i) => ({ label: `RUT of seeded customer ${i + 1} (own tenant)`, rut })),
    ...otherRuts.map((rut, i) => ({ label: `RUT of seeded customer ${i + 1} (other tenant)`, rut })),
    ...extraRuts.map((rut, i) => ({ label: `RUT ${i + 1} the fuzzer sends`, rut })),
  ];
  return {
    context: {
      own: ownSeeded.fixtures,
      other: otherSeeded.fixtures,
      keys: { all: all.apiKey, readOnly: readOnly.apiKey, revoked: revoked.apiKey, other: otherKey.apiKey },
      examples,
      ruts: ruts.map(({ rut }) => rut),
      webhookSecret: ownSeeded.webhookSecret,
    },
    secrets,
    ruts,
  };
}

/** A key issued by the CLI is usable on its first request (docs/reference/authentication.md, "API keys"). */
async function waitForKey(baseUrl: string, apiKey: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while ((await fetch(`${baseUrl}/v1/webhook-endpoints`, { headers: { Authorization: `Bearer ${apiKey}` } })).status !== 200) {
    if (Date.now() > deadline) throw new Error('an issued key was not accepted within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

type Call = { path?: Record<string, string>; query?: Record<string, string>; body?: unknown };

async function seedTenant(baseUrl: string, tenantId: string, apiKey: string, ruts: string[], examples: Record<string, Example>, sentValues: Set<string>) {
  /** Sends one request, which must succeed, and keeps it as its operation's example. */
  const call = async (method: string, template: string, request: Call = {}): Promise<any> => {
    examples[`${method} ${template}`] = { path: request.path ?? {}, query: request.query ?? {}, body: request.body };
    for (const text of stringsIn(request.body)) sentValues.add(text);
    const path = template.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(request.path![name]));
    const query = new URLSearchParams(request.query ?? {}).toString();
    const response = await fetch(`${baseUrl}${path}${query ? `?${query}` : ''}`, {
      method,
      headers: {
        Authorization: `Bearer ${apiKey}`,
        ...(method === 'GET' ? {} : { 'Idempotency-Key': randomUUID() }),
        ...(request.body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
    });
    const text = await response.text();
    if (response.status >= 300) throw new Error(`seeding: ${method} ${path} answered ${response.status}: ${text}`);
    return response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text;
  };
  /** Keeps a valid request as its operation's example without sending it: sending it would end what other requests need (a revocation, a deletion). */
  const example = (method: string, template: string, request: Call) => {
    examples[`${method} ${template}`] = { path: request.path ?? {}, query: request.query ?? {}, body: request.body };
  };
  const now = Date.now();
  const redec = { finalityCode: '2', objectiveCodes: ['02', '03'], scopes: [{ scopeId: 'redec-debt', dataCategoryCode: 'redec.consolidated_debt_record' }], targets: ['Banco Ejemplo'], obligationSourceSystem: 'core-loans', regulatoryProfile: 'baseline' };
  const configuration = (templateKey: string, channel: string, captureTiming: string, terms: object) => ({
    templateKey,
    title: 'Consulta al Registro de Deuda Consolidada',
    text: 'Autorizo a Banco Ejemplo a consultar mi información en el Registro de Deuda Consolidada.',
    channel,
    captureTiming,
    ...terms,
  });
  const digital = await call('POST', '/v1/configurations', { body: configuration('redec-digital', 'digital', 'deferred_external', { redec }) });
  const phone = await call('POST', '/v1/configurations', { body: configuration('redec-phone', 'phone', 'deferred_external', { redec }) });
  const embedded = await call('POST', '/v1/configurations', { body: configuration('redec-embedded', 'digital', 'embedded', { redec, embed: { allowedOrigins: [INTEGRATOR_ORIGIN] } }) });
  const general = await call('POST', '/v1/configurations', { body: configuration('terms-of-service', 'digital', 'deferred_external', {}) });
  await call('GET', '/v1/configurations', { query: { templateKey: 'redec-digital' } });
  await call('GET', '/v1/configurations/{configurationId}', { path: { configurationId: digital.configurationId } });

  const customers: string[] = [];
  for (const [i, rut] of ruts.entries()) {
    const resolved = await call('POST', '/v1/customers/resolve', {
      body: { userReference: `cliente-${i + 1}`, identifiers: [{ system: 'cl-sii', type: 'rut', value: rut, verification: { method: 'clave_unica', sourceReference: 'auth-1', verifiedAt: now - MINUTE } }] },
    });
    customers.push(resolved.customerId);
  }
  const open = (configurationId: string, customerId: string) => call('POST', '/v1/redec/consent-interactions', { body: { configurationId, customerId } });
  const grant = (interactionId: string, evidence: object) =>
    call('POST', '/v1/redec/consent-interactions/{interactionId}/grant', {
      path: { interactionId },
      body: { occurredAt: now - MINUTE, sourceSystem: 'crm', sourceReference: `cap-${randomUUID()}`, evidence },
    });
  const electronicInteraction = await open(digital.configurationId, customers[0]);
  const electronic = await grant(electronicInteraction.interactionId, { kind: 'electronic', authentication: { method: 'clave_unica', reference: 'auth-ref-1' } });
  const audioInteraction = await open(phone.configurationId, customers[1]);
  const audio = await grant(audioInteraction.interactionId, { kind: 'audio_recording', recordedAt: now - MINUTE, mediaType: 'audio/wav', contentBase64: EVIDENCE.toString('base64') });
  const pending = await open(digital.configurationId, customers[1]);
  const consentPath = { redecConsentId: electronic.redecConsentId };
  await call('GET', '/v1/redec/consents/{redecConsentId}', { path: consentPath });
  await call('GET', '/v1/redec/consents', { query: { internalConsentCode: electronic.internalConsentCode } });
  await call('GET', '/v1/redec/consent-exports', { query: { limit: '10' } });
  await call('GET', '/v1/redec/consents/{redecConsentId}/evidence', { path: consentPath });
  await call('GET', '/v1/redec/consents/{redecConsentId}/artifact', { path: { redecConsentId: audio.redecConsentId } });
  await call('GET', '/v1/redec/consents/{redecConsentId}/artifact/download', { path: { redecConsentId: audio.redecConsentId } });
  await call('GET', '/v1/redec/consents/{redecConsentId}/history', { path: consentPath });

  const creditOperationReference = `op-${randomUUID()}`;
  const extension = await call('POST', '/v1/redec/consents/{redecConsentId}/credit-extensions', {
    path: consentPath,
    body: { customerTenantId: customers[0], objectiveCode: '02', creditOperationReference, creditGrantedAt: now - MINUTE / 2, sourceSystem: 'core-loans', sourceReference: `loan-${randomUUID()}` },
  });
  const obligationReference = `op-${randomUUID()}`;
  const binding = await call('POST', '/v1/redec/reportable-obligations/bindings', {
    body: { sourceSystem: 'core-loans', obligationReference, kind: 'consent', redecConsentId: electronic.redecConsentId, obligationGrantedAt: now - MINUTE / 3 },
  });
  await call('GET', '/v1/redec/reportable-obligations/consent-code', { query: { sourceSystem: 'core-loans', obligationReference } });
  await call('POST', '/v1/redec/consents/{redecConsentId}/notification-evidence', {
    path: consentPath,
    body: {
      notificationReason: 'grant',
      notificationChannel: 'email',
      recipientHash: createHash('sha256').update('recipient').digest('hex'),
      status: 'sent',
      sentAt: now - MINUTE / 4,
      sourceSystem: 'notifier',
      sourceReference: `notice-${randomUUID()}`,
      contentSha256: EVIDENCE_SHA256,
    },
  });
  const authorize = () =>
    call('POST', '/v1/redec/accesses/authorize', {
      body: {
        authorizationBasis: 'consent',
        consentAuthorizationMode: 'initial_window',
        redecConsentId: electronic.redecConsentId,
        dataCategoryCode: 'redec.consolidated_debt_record',
        scopeId: 'redec-debt',
        objectiveCode: '02',
        reportingObligation: { status: 'none', sourceSystem: 'core-loans', sourceReference: `solicitud-${randomUUID()}`, assertedAt: now - 1_000 },
        sourceSystem: 'originacion',
        sourceReference: `acceso-${randomUUID()}`,
      },
    });
  const accessed = (await authorize()).decision;
  const unconfirmed = (await authorize()).decision;
  await call('POST', '/v1/redec/accesses/{redecAccessId}/confirm', { path: { redecAccessId: accessed.redecAccessId }, body: { outcome: { kind: 'accessed', accessedAt: Date.now() } } });
  await call('GET', '/v1/redec/notifications/overdue', { query: { afterBankingDays: '0' } });
  await call('GET', '/v1/redec/reportable-obligations/reconciliation', { query: { limit: '10' } });

  const generalInteraction = await call('POST', '/v1/consent-interactions', { body: { configurationId: general.configurationId, customerId: customers[0] } });
  const generalConsent = await call('POST', '/v1/consent-interactions/{interactionId}/grant', {
    path: { interactionId: generalInteraction.interactionId },
    body: { occurredAt: now - MINUTE, sourceSystem: 'web', sourceReference: `tos-${randomUUID()}`, evidence: { kind: 'electronic', authentication: { method: 'password', reference: 'session-9' } } },
  });
  await call('GET', '/v1/consents/{consentId}', { path: { consentId: generalConsent.consentId } });
  await call('GET', '/v1/customers/{customerId}/consents', { path: { customerId: customers[0] } });
  await call('GET', '/v1/customers/{customerId}/consent-compliance', { path: { customerId: customers[0] }, query: { templateKey: 'terms-of-service' } });
  const decision = await call('POST', '/v1/consent-decisions', {
    body: { customerId: customers[1], occurredAt: now - MINUTE, sourceSystem: 'web', sourceReference: `decision-${randomUUID()}`, items: [{ configurationId: general.configurationId, decision: 'declined' }] },
  });
  await call('GET', '/v1/consent-decisions/{decisionId}', { path: { decisionId: decision.decisionId } });

  // A page shows no code without its meaning: the bank states what its purpose and objective codes mean first.
  await call('PUT', '/v1/tenant-settings/presentation', {
    body: { displayName: 'Banco Fuzz', accentColor: '#0b3d91', terms: { finality: { '2': 'Evaluar una solicitud de crédito' }, objective: { '02': 'Crédito nuevo', '03': 'Renegociación' } } },
  });
  const session = await call('POST', '/v1/embed/sessions', { body: { configurationId: embedded.configurationId, customerId: customers[0], returnUrl: `${INTEGRATOR_ORIGIN}/consent/return` } });
  await call('GET', '/v1/embed/sessions/{sessionId}', { path: { sessionId: session.sessionId } });
  const pageToken = new URL(session.url).searchParams.get('token')!;
  const center = await call('POST', '/v1/privacy-center/sessions', { body: { customerId: customers[0], returnUrl: `${INTEGRATOR_ORIGIN}/privacidad`, expiresInSeconds: 3600 } });
  const centerToken = new URL(center.url).searchParams.get('token')!;

  const endpoint = await call('POST', '/v1/webhook-endpoints', { body: { url: `https://${PUBLIC_HOST}/hooks`, eventTypes: ['redec.notification.required'] } });
  const endpointPath = { endpointId: endpoint.endpointId };
  await call('GET', '/v1/webhook-endpoints');
  await call('GET', '/v1/webhook-endpoints/{endpointId}', { path: endpointPath });
  await call('GET', '/v1/webhook-endpoints/{endpointId}/deliveries', { path: endpointPath });

  const extensionPath = { ...consentPath, creditExtensionId: extension.creditExtensionId };
  const annulment = { reason: 'recorded by mistake', sourceReference: `annul-${randomUUID()}` };
  example('POST', '/v1/redec/consents/{redecConsentId}/revoke', { path: consentPath, body: { channel: 'digital', occurredAt: now - 1_000, sourceType: 'direct', identityAssurance: 'client_authenticated' } });
  example('POST', '/v1/redec/consents/{redecConsentId}/credit-extensions/{creditExtensionId}/end', { path: extensionPath, body: { endReason: 'obligation_extinguished' } });
  example('POST', '/v1/redec/consents/{redecConsentId}/credit-extensions/{creditExtensionId}/annul', { path: extensionPath, body: annulment });
  example('POST', '/v1/redec/consents/{redecConsentId}/credit-extensions/{creditExtensionId}/end/annul', { path: extensionPath, body: annulment });
  example('POST', '/v1/redec/reportable-obligations/bindings/{bindingId}/annul', { path: { bindingId: binding.bindingId }, body: annulment });
  example('POST', '/v1/consents/{consentId}/revoke', { path: { consentId: generalConsent.consentId }, body: { occurredAt: now - 1_000, channel: 'digital', sourceSystem: 'web', sourceReference: `revoke-${randomUUID()}` } });
  example('POST', '/v1/webhook-endpoints/{endpointId}/rotate-secret', { path: endpointPath, body: { overlapSeconds: 60 } });
  example('POST', '/v1/webhook-endpoints/{endpointId}/redeliver', { path: endpointPath, body: {} });
  example('DELETE', '/v1/webhook-endpoints/{endpointId}', { path: endpointPath });

  const fixtures: TenantFixtures = {
    tenantId,
    values: {
      tenantId: [tenantId],
      configurationId: [digital, phone, embedded, general].map((c) => c.configurationId),
      templateKey: ['redec-digital', 'redec-phone', 'redec-embedded', 'terms-of-service'],
      customerId: customers,
      customerTenantId: customers,
      interactionId: [electronicInteraction, audioInteraction, pending, generalInteraction].map((i) => i.interactionId),
      redecConsentId: [electronic.redecConsentId, audio.redecConsentId],
      internalConsentCode: [electronic.internalConsentCode, audio.internalConsentCode],
      consentActionId: [electronic.consentActionId, audio.consentActionId],
      creditExtensionId: [extension.creditExtensionId],
      creditOperationReference: [creditOperationReference],
      obligationReference: [obligationReference],
      bindingId: [binding.bindingId],
      redecAccessId: [accessed.redecAccessId, unconfirmed.redecAccessId],
      consentId: [generalConsent.consentId],
      decisionId: [decision.decisionId],
      sessionId: [session.sessionId],
      pageReference: [session.url, center.url].map((url: string) => new URL(url).pathname.split('/').pop()!),
      token: [pageToken, centerToken],
      endpointId: [endpoint.endpointId],
    },
  };
  const secrets: Secret[] = [
    { label: 'consent page token', value: pageToken },
    { label: 'privacy center token', value: centerToken },
    { label: 'embed result secret', value: session.resultSecret },
    { label: 'webhook secret', value: endpoint.secret },
  ];
  return { fixtures, secrets, webhookSecret: endpoint.secret as string };
}

/**
 * What the service derived from identifiers and stored: the keyed hashes and
 * ciphertexts in the facts' data (members named `...hash` or `...ciphertext`),
 * but not a value a client sent (a `recipientHash` is the bank's own, shown
 * back by design) nor the SHA-256 of content, which responses show.
 */
function storedIdentifierSecrets(file: string, sentValues: ReadonlySet<string>): Secret[] {
  const ledger = new LedgerFile(file);
  try {
    const found = new Map<string, string>();
    const visit = (value: unknown, key: string) => {
      if (typeof value === 'string' && /(hash|ciphertext)$/i.test(key) && !/sha256/i.test(key) && !sentValues.has(value)) found.set(value, key);
      else if (Array.isArray(value)) value.forEach((item) => visit(item, key));
      else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) visit(v, k);
    };
    for (const data of ledger.allFactData()) visit(data, '');
    return [...found].map(([value, key]) => ({ label: `stored ${key}`, value }));
  } finally {
    ledger.close();
  }
}

function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(stringsIn);
  return [];
}
