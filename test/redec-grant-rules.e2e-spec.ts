import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { issueApiKey } from '@ledger/ledger';
import { Scope } from '@ledger/platform';
import { bankingCalendar, initialAccessValidUntil, redecStreams } from '@ledger/redec';
import { ApiApp, startApiApp } from './support/api-app';
import { TestEnvironment, testEnvironment } from './support/environment';
import { expectValidationError, recordsNothingAtAll } from './support/expectations';
import { checkDigitOf, rutOf } from './support/redec-fixtures';

// The certificate worker appends ArtifactStored on its own schedule; without it, a refused
// request can be checked to record nothing by the store's head position.
const NO_BACKGROUND_WRITES = { LEDGER_WORKERS: 'external' };

// docs/reference/grants.md and docs/reference/regulatory-representation.md:
// one test per rule of the grant and of the regulatory reads, through the real
// HTTP stack, SQLite store and Redis. Every refused grant is also checked to
// record nothing, and then the same interaction is granted, which shows the
// refusal claimed nothing either.

const DAY = 86_400_000;
const MINUTE = 60_000;
const SPEC_2_5_FIELDS = [
  'redecConsentId',
  'internalConsentCode',
  'customerId',
  'status',
  'channel',
  'captureTiming',
  'grantedAt',
  'initialAccessValidUntil',
  'finalityCode',
  'mediumCode',
  'objectiveCodes',
  'revocation',
  'creditExtensions',
  'artifactStatus',
  'retentionUntil',
  'retentionBasis',
].sort();


/** The local day in Santiago, computed with Intl here rather than with the library under test. */
const santiagoDay = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Santiago', year: 'numeric', month: '2-digit', day: '2-digit' });
const localDay = (epochMs: number) => santiagoDay.format(epochMs);

/** The first instant of the local day of `epochMs` (binary search over instants; local days never go backwards). */
function startOfLocalDayOf(epochMs: number): number {
  const day = localDay(epochMs);
  let low = epochMs - 30 * 3_600_000;
  let high = epochMs;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (localDay(middle) < day) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * docs/reference/grants.md, "The initial access window", counted independently:
 * the 15th banking business day after the local day of grantedAt, Monday to
 * Friday except the shipped national holidays and 31 December.
 */
const HOLIDAYS = new Set<string>(
  (JSON.parse(readFileSync(join(__dirname, '..', 'libs', 'redec', 'src', 'calendar', 'holidays-cl.json'), 'utf8')) as { holidays: Array<{ date: string }> }).holidays.map(
    (h) => h.date,
  ),
);
function fifteenthBankingDayAfter(grantedAt: number): string {
  const [year, month, day] = localDay(grantedAt).split('-').map(Number);
  const cursor = new Date(Date.UTC(year, month - 1, day, 12));
  let counted = 0;
  for (;;) {
    cursor.setUTCDate(cursor.getUTCDate() + 1);
    const date = cursor.toISOString().slice(0, 10);
    const weekday = cursor.getUTCDay();
    if (weekday >= 1 && weekday <= 5 && !HOLIDAYS.has(date) && !date.endsWith('-12-31')) counted += 1;
    if (counted === 15) return date;
  }
}

describe('REDEC grant rules and regulatory reads', () => {
  let environment: TestEnvironment;
  let api: ApiApp;
  let tenantId: string;
  let key: string;
  let writerOnly: string;
  let readerOnly: string;
  let customerId: string;
  const configurations = { digital: '', phone: '', inPerson: '' };
  /** Another tenant: a configuration, a customer, an interaction and a granted consent of its own. */
  let other: { key: string; customerId: string; interactionId: string; redecConsentId: string; internalConsentCode: string };
  /** Every internalConsentCode this tenant was given, with its consent. */
  const issuedCodes = new Map<string, string>();

  let nextRutBody = 16_000_000;
  const freshRut = () => rutOf((nextRutBody += 7919));
  const auth = (apiKey = key) => ({ Authorization: `Bearer ${apiKey}` });
  const electronic = { kind: 'electronic', authentication: { method: 'clave_unica', reference: 'auth-ref-1' } };
  const audioBytes = Buffer.from('RIFF....WAVEfmt a recorded call, as bytes');
  const audioSha256 = createHash('sha256').update(audioBytes).digest('hex');

  const grantBody = (overrides: Record<string, unknown> = {}) => ({
    occurredAt: Date.now() - MINUTE,
    sourceSystem: 'crm',
    sourceReference: `cap-${randomUUID()}`,
    evidence: electronic,
    ...overrides,
  });
  const grant = (interactionId: string, body: unknown, apiKey = key) =>
    api.http.post(`/v1/redec/consent-interactions/${interactionId}/grant`).set(auth(apiKey)).send(body as object);
  const readConsent = (redecConsentId: string, apiKey = key) => api.http.get(`/v1/redec/consents/${redecConsentId}`).set(auth(apiKey));
  const lookup = (query: Record<string, string>, apiKey = key) => api.http.get('/v1/redec/consents').query(query).set(auth(apiKey));
  const customerConsents = (id: string, apiKey = key) => api.http.get(`/v1/customers/${id}/consents`).set(auth(apiKey));

  async function publish(apiKey: string, body: Record<string, unknown>): Promise<string> {
    const published = await api.http
      .post('/v1/configurations')
      .set(auth(apiKey))
      .send({
        templateKey: `redec-${randomUUID()}`,
        title: 'Consulta al Registro de Deuda Consolidada',
        text: 'Autorizo la consulta de mi deuda consolidada.',
        channel: 'digital',
        captureTiming: 'deferred_external',
        redec: {
          finalityCode: '2',
          objectiveCodes: ['02', '03'],
          scopes: [
            { scopeId: 'redec-debt', dataCategoryCode: 'redec.consolidated_debt_record' },
            { scopeId: 'redec-debt-history', dataCategoryCode: 'redec.consolidated_debt_history' },
          ],
          targets: ['Banco Ejemplo'],
          obligationSourceSystem: 'core-loans',
          regulatoryProfile: 'baseline',
        },
        ...body,
      });
    expect(published.status).toBe(201);
    return published.body.configurationId;
  }

  async function resolveVerifiedCustomer(apiKey = key): Promise<string> {
    const resolved = await api.http
      .post('/v1/customers/resolve')
      .set(auth(apiKey))
      .send({
        userReference: `cliente-${randomUUID()}`,
        identifiers: [{ system: 'cl-sii', type: 'rut', value: freshRut(), verification: { method: 'clave_unica', sourceReference: 'auth-1', verifiedAt: Date.now() - MINUTE } }],
      });
    expect(resolved.status).toBe(201);
    return resolved.body.customerId;
  }

  async function openInteraction(configurationId = configurations.digital, forCustomer = customerId, apiKey = key): Promise<string> {
    const opened = await api.http.post('/v1/redec/consent-interactions').set(auth(apiKey)).send({ configurationId, customerId: forCustomer });
    expect(opened.status).toBe(201);
    return opened.body.interactionId;
  }

  /** Grants a fresh interaction (or the given one) and expects 201; remembers the code. */
  async function granted(body: Record<string, unknown>, configurationId = configurations.digital, interactionId?: string) {
    const response = await grant(interactionId ?? (await openInteraction(configurationId)), body);
    expect(response.status).toBe(201);
    issuedCodes.set(response.body.internalConsentCode, response.body.redecConsentId);
    return response.body as { redecConsentId: string; internalConsentCode: string; artifactStatus: string; consentActionId: string; grantedAt: number; recordedAt: number; initialAccessValidUntil: number };
  }

  const recordsNothing = <T>(act: () => Promise<T>) => recordsNothingAtAll(api, act);

  beforeAll(async () => {
    environment = testEnvironment();
    api = await startApiApp(environment, NO_BACKGROUND_WRITES);
    ({ tenantId, apiKey: key } = await api.tenantKey(['consent:admin', 'consent:write', 'consent:read', 'consent:identity-assert']));
    const operator = { actor: 'cli:test', correlationId: 'test', now: Date.now() };
    const sameTenant = async (scopes: Scope[]) => (await issueApiKey(api.store, { tenantId, scopes }, operator)).apiKey;
    writerOnly = await sameTenant(['consent:write']);
    readerOnly = await sameTenant(['consent:read']);
    configurations.digital = await publish(key, { channel: 'digital' });
    configurations.phone = await publish(key, { channel: 'phone' });
    configurations.inPerson = await publish(key, { channel: 'in_person' });
    customerId = await resolveVerifiedCustomer();

    const otherKey = (await api.tenantKey(['consent:admin', 'consent:write', 'consent:read', 'consent:identity-assert'])).apiKey;
    const otherCustomerId = await resolveVerifiedCustomer(otherKey);
    const otherInteractionId = await openInteraction(await publish(otherKey, {}), otherCustomerId, otherKey);
    const otherGrant = await grant(otherInteractionId, grantBody(), otherKey);
    expect(otherGrant.status).toBe(201);
    other = { key: otherKey, customerId: otherCustomerId, interactionId: otherInteractionId, ...otherGrant.body };
  });
  afterAll(async () => {
    await api?.close();
    await environment?.dispose();
  });

  it('without occurredAt, sourceSystem or sourceReference the grant is 400 VALIDATION_ERROR naming the fields', async () => {
    const interactionId = await openInteraction();
    for (const field of ['occurredAt', 'sourceSystem', 'sourceReference']) {
      const body: Record<string, unknown> = grantBody();
      delete body[field];
      const response = await recordsNothing(() => grant(interactionId, body));
      expectValidationError(response, [{ field, reason: 'required' }]);
      expect(response.body.errors).toHaveLength(1);
    }
    const none = await recordsNothing(() => grant(interactionId, { evidence: electronic }));
    expectValidationError(none, [
      { field: 'occurredAt', reason: 'required' },
      { field: 'sourceSystem', reason: 'required' },
      { field: 'sourceReference', reason: 'required' },
    ]);
    const empty = await recordsNothing(() => grant(interactionId, grantBody({ sourceSystem: '', sourceReference: '' })));
    expectValidationError(empty, [
      { field: 'sourceSystem', reason: expect.any(String) },
      { field: 'sourceReference', reason: expect.any(String) },
    ]);
    await granted(grantBody(), undefined, interactionId);
  });

  it('an internalConsentCode sent is 400 VALIDATION_ERROR with reason internal_consent_code_is_server_generated', async () => {
    const interactionId = await openInteraction();
    const sentCode = 'ABCDEFGHIJ0123456789';
    for (const value of [sentCode, '99999999999999999999', null]) {
      const response = await recordsNothing(() => grant(interactionId, grantBody({ internalConsentCode: value })));
      expectValidationError(response, [{ field: 'internalConsentCode', reason: 'internal_consent_code_is_server_generated' }], 'internal_consent_code_is_server_generated');
    }
    const ok = await granted(grantBody(), undefined, interactionId);
    expect(ok.internalConsentCode).not.toBe(sentCode);
  });

  it('occurredAt after receipt or beyond the 7-day profile skew is refused; just inside 7 days is granted', async () => {
    const interactionId = await openInteraction();
    const future = await recordsNothing(() => grant(interactionId, grantBody({ occurredAt: Date.now() + 5_000 })));
    expectValidationError(future, [{ field: 'occurredAt', reason: 'occurred_at_after_receipt' }], 'occurred_at_after_receipt');

    const tooOld = await recordsNothing(() => grant(interactionId, grantBody({ occurredAt: Date.now() - 7 * DAY - MINUTE })));
    expectValidationError(tooOld, [{ field: 'occurredAt', reason: 'occurred_at_beyond_profile_skew' }], 'occurred_at_beyond_profile_skew');

    const occurredAt = Date.now() - 7 * DAY + MINUTE;
    const inside = await granted(grantBody({ occurredAt }), undefined, interactionId);
    expect(inside.grantedAt).toBe(occurredAt);
    expect(inside.recordedAt).toBeGreaterThanOrEqual(occurredAt + 7 * DAY - MINUTE);
    expect((await readConsent(inside.redecConsentId)).body.grantedAt).toBe(occurredAt);
  });

  it('a call recording on the phone channel must match occurredAt within 5 minutes, either side', async () => {
    const occurredAt = Date.now() - 2 * DAY;
    const audio = (recordedAt: number) => ({ kind: 'audio_recording', recordedAt, mediaType: 'audio/wav', contentBase64: audioBytes.toString('base64') });

    const interactionId = await openInteraction(configurations.phone);
    for (const recordedAt of [occurredAt + 5 * MINUTE + 1_000, occurredAt - 5 * MINUTE - 1_000, occurredAt + DAY]) {
      const response = await recordsNothing(() => grant(interactionId, grantBody({ occurredAt, evidence: audio(recordedAt) })));
      expectValidationError(response, [{ field: 'evidence.recordedAt', reason: 'recording_outside_tolerance' }], 'recording_outside_tolerance');
    }

    const later = await granted(grantBody({ occurredAt, evidence: audio(occurredAt + 4 * MINUTE + 50_000) }), undefined, interactionId);
    expect(later).toMatchObject({ grantedAt: occurredAt, artifactStatus: 'ready' });
    const earlier = await granted(grantBody({ occurredAt, evidence: audio(occurredAt - 4 * MINUTE - 50_000) }), configurations.phone);
    expect(earlier.grantedAt).toBe(occurredAt);
    const atTolerance = await granted(grantBody({ occurredAt, evidence: audio(occurredAt + 5 * MINUTE) }), configurations.phone);
    expect(atTolerance.grantedAt).toBe(occurredAt);

    const read = await readConsent(later.redecConsentId);
    expect(read.body).toMatchObject({ channel: 'phone', mediumCode: '2', grantedAt: occurredAt, artifactStatus: 'ready' });
  });

  it("a paper original's digitization date is never compared with occurredAt, nor moves grantedAt", async () => {
    const occurredAt = Date.now() - 6 * DAY;
    const digitizedAt = occurredAt + 5 * DAY;
    const paper = await granted(
      grantBody({
        occurredAt,
        evidence: { kind: 'physical_document', digitizedAt, mediaType: 'application/pdf', externalReference: 'dms-contracts/123', contentSha256: audioSha256 },
      }),
      configurations.inPerson,
    );
    expect(paper).toMatchObject({ grantedAt: occurredAt, artifactStatus: expect.stringMatching(/^(pending|ready)$/) });
    expect(paper.initialAccessValidUntil).toBe(initialAccessValidUntil(occurredAt, bankingCalendar()));
    const read = await readConsent(paper.redecConsentId);
    expect(read.body).toMatchObject({ channel: 'in_person', mediumCode: '3', grantedAt: occurredAt, initialAccessValidUntil: paper.initialAccessValidUntil });

    const digitizedLongBefore = await granted(
      grantBody({ occurredAt, evidence: { kind: 'physical_document', digitizedAt: occurredAt - 300 * DAY, mediaType: 'application/pdf', contentBase64: audioBytes.toString('base64') } }),
      configurations.inPerson,
    );
    expect(digitizedLongBefore.grantedAt).toBe(occurredAt);

    // A digitization that has not happened yet is not a fact (issue 12).
    const interactionId = await openInteraction(configurations.inPerson);
    const future = await recordsNothing(() =>
      grant(interactionId, grantBody({ occurredAt, evidence: { kind: 'physical_document', digitizedAt: Date.now() + DAY, mediaType: 'application/pdf', contentBase64: audioBytes.toString('base64') } })),
    );
    expectValidationError(future, [{ field: 'evidence.digitizedAt', reason: 'digitized_at_after_receipt' }]);
  });

  it('evidence bytes are supplied, or referenced with their hash; a hash that does not match the bytes is refused', async () => {
    const interactionId = await openInteraction(configurations.phone);
    const occurredAt = Date.now() - MINUTE;
    const audio = (content: Record<string, unknown>) => grantBody({ occurredAt, evidence: { kind: 'audio_recording', recordedAt: occurredAt, mediaType: 'audio/wav', ...content } });
    const base64 = audioBytes.toString('base64');

    const mismatch = await recordsNothing(() => grant(interactionId, audio({ contentBase64: base64, contentSha256: 'a'.repeat(64) })));
    expectValidationError(mismatch, [{ field: 'evidence.contentSha256', reason: 'content_sha256_mismatch' }]);

    const neither = await recordsNothing(() => grant(interactionId, audio({})));
    expectValidationError(neither, [{ field: 'evidence', reason: 'content_or_external_reference_required' }]);

    const referenceWithoutHash = await recordsNothing(() => grant(interactionId, audio({ externalReference: 'pbx-calls/1' })));
    expectValidationError(referenceWithoutHash, [{ field: 'evidence', reason: 'content_or_external_reference_required' }]);

    const both = await recordsNothing(() => grant(interactionId, audio({ contentBase64: base64, externalReference: 'pbx-calls/1', contentSha256: audioSha256 })));
    expectValidationError(both, [{ field: 'evidence', reason: 'content_or_external_reference_required' }]);

    const notBase64 = await recordsNothing(() => grant(interactionId, audio({ contentBase64: 'not base64!' })));
    expectValidationError(notBase64, [{ field: 'evidence.contentBase64', reason: 'invalid_base64' }]);
    // Under an Idempotency-Key the request is hashed before it is validated (only the key's bookkeeping is recorded):
    // text that is not base64 is hashed too, and refused alike.
    for (const text of ['', 'a', 'a\ud800b', 'QR==']) {
      const keyed = await grant(interactionId, audio({ contentBase64: text })).set('Idempotency-Key', randomUUID());
      expectValidationError(keyed, [{ field: 'evidence.contentBase64', reason: 'invalid_base64' }]);
    }

    const badHash = await recordsNothing(() => grant(interactionId, audio({ externalReference: 'pbx-calls/1', contentSha256: 'XYZ' })));
    expectValidationError(badHash, [{ field: 'evidence.contentSha256', reason: 'invalid_format' }]);

    const held = await granted(audio({ contentBase64: base64, contentSha256: audioSha256 }), undefined, interactionId);
    expect(held.artifactStatus).toBe('ready');
    const referenced = await granted(audio({ externalReference: 'pbx-calls/2', contentSha256: audioSha256 }), configurations.phone);
    expect((await readConsent(referenced.redecConsentId)).body.mediumCode).toBe('2');
  });

  it('evidence fields of another kind, and an evidence kind the channel does not accept, are refused', async () => {
    const occurredAt = Date.now() - MINUTE;
    const digital = await openInteraction(configurations.digital);
    const phone = await openInteraction(configurations.phone);
    const audio = { kind: 'audio_recording', recordedAt: occurredAt, mediaType: 'audio/wav', contentBase64: audioBytes.toString('base64') };

    const foreignFields: Array<[string, Record<string, unknown>, string]> = [
      [digital, { ...electronic, recordedAt: occurredAt }, 'evidence.recordedAt'],
      [digital, { ...electronic, contentBase64: audioBytes.toString('base64') }, 'evidence.contentBase64'],
      [digital, { ...electronic, mediaType: 'application/pdf' }, 'evidence.mediaType'],
      [phone, { ...audio, digitizedAt: occurredAt }, 'evidence.digitizedAt'],
      [phone, { ...audio, authentication: electronic.authentication }, 'evidence.authentication'],
    ];
    for (const [interactionId, evidence, field] of foreignFields) {
      const response = await recordsNothing(() => grant(interactionId, grantBody({ occurredAt, evidence })));
      expectValidationError(response, [{ field, reason: 'not_for_evidence_kind' }]);
    }

    const unknownProperty = await recordsNothing(() => grant(digital, grantBody({ occurredAt, evidence: { ...electronic, mediumCode: '1' } })));
    expectValidationError(unknownProperty, [{ field: 'evidence.mediumCode', reason: 'unknown_property' }]);
    const mediumCodeSent = await recordsNothing(() => grant(digital, grantBody({ occurredAt, mediumCode: '2' })));
    expectValidationError(mediumCodeSent, [{ field: 'mediumCode', reason: 'unknown_property' }]);

    const audioOnDigital = await recordsNothing(() => grant(digital, grantBody({ occurredAt, evidence: audio })));
    expectValidationError(audioOnDigital, [{ field: 'evidence.kind', reason: 'evidence_kind_not_accepted_for_channel' }], 'evidence_kind_not_accepted_for_channel');
    const electronicOnPhone = await recordsNothing(() => grant(phone, grantBody({ occurredAt, evidence: electronic })));
    expectValidationError(electronicOnPhone, [{ field: 'evidence.kind', reason: 'evidence_kind_not_accepted_for_channel' }], 'evidence_kind_not_accepted_for_channel');
    const paperOnPhone = await recordsNothing(() =>
      grant(phone, grantBody({ occurredAt, evidence: { kind: 'physical_document', digitizedAt: occurredAt, mediaType: 'application/pdf', contentBase64: audioBytes.toString('base64') } })),
    );
    expectValidationError(paperOnPhone, [{ field: 'evidence.kind', reason: 'evidence_kind_not_accepted_for_channel' }], 'evidence_kind_not_accepted_for_channel');

    // Both interactions are still open.
    await granted(grantBody({ occurredAt, evidence: electronic }), undefined, digital);
    await granted(grantBody({ occurredAt, evidence: audio }), undefined, phone);
  });

  it('derives the medium code from the evidence, per the baseline profile', async () => {
    const occurredAt = Date.now() - MINUTE;
    const cases: Array<[string, Record<string, unknown>, string]> = [
      [configurations.digital, electronic, '1'],
      [configurations.inPerson, electronic, '1'],
      [configurations.phone, { kind: 'audio_recording', recordedAt: occurredAt, mediaType: 'audio/mpeg', externalReference: 'pbx-calls/9', contentSha256: audioSha256 }, '2'],
      [configurations.inPerson, { kind: 'physical_document', digitizedAt: occurredAt, mediaType: 'image/jpeg', contentBase64: audioBytes.toString('base64') }, '3'],
    ];
    for (const [configurationId, evidence, mediumCode] of cases) {
      const consent = await granted(grantBody({ occurredAt, evidence }), configurationId);
      expect((await readConsent(consent.redecConsentId)).body.mediumCode).toBe(mediumCode);
    }
  });

  it('representation is a closed object: unknown properties, legally_verified and an invalid RUT are refused', async () => {
    const interactionId = await openInteraction();
    const representation = (overrides: Record<string, unknown> = {}) => ({
      type: 'representative',
      identifierRutInput: freshRut(),
      authorityBasis: 'reporter_asserted_representation',
      authorityReference: 'poder-notarial-42',
      assertedAt: Date.now() - DAY,
      ...overrides,
    });
    const refusals: Array<[Record<string, unknown>, { field: string; reason: string }]> = [
      [representation({ tenantId }), { field: 'representation.tenantId', reason: 'unknown_property' }],
      [representation({ verified: true }), { field: 'representation.verified', reason: 'unknown_property' }],
      [representation({ authorityBasis: 'legally_verified' }), { field: 'representation.authorityBasis', reason: 'invalid_value' }],
      [representation({ type: 'self' }), { field: 'representation.type', reason: 'invalid_value' }],
      [representation({ identifierRutInput: '12.345.678-9' }), { field: 'representation.identifierRutInput', reason: 'invalid_rut' }],
    ];
    for (const [value, error] of refusals) {
      const response = await recordsNothing(() => grant(interactionId, grantBody({ representation: value })));
      expectValidationError(response, [error]);
      expect(JSON.stringify(response.body)).not.toContain('12.345.678');
    }
    await granted(grantBody(), undefined, interactionId);
  });

  it('a valid representation is granted and the RUT never appears in clear in a response, a read or the recorded fact', async () => {
    const body = nextRutBody + 3_331;
    const rut = rutOf(body);
    const typed = `${String(body).slice(0, -6)}.${String(body).slice(-6, -3)}.${String(body).slice(-3)}-${checkDigitOf(body)}`;
    const consent = await granted(
      grantBody({
        representation: { type: 'representative', identifierRutInput: typed, authorityBasis: 'reporter_asserted_representation', authorityReference: 'poder-7', assertedAt: Date.now() - DAY },
      }),
    );
    const texts = [
      JSON.stringify(consent),
      JSON.stringify((await readConsent(consent.redecConsentId)).body),
      JSON.stringify((await lookup({ internalConsentCode: consent.internalConsentCode })).body),
      JSON.stringify((await customerConsents(customerId)).body),
      JSON.stringify(await api.store.readStream(redecStreams.consent(tenantId, consent.redecConsentId))),
    ];
    for (const text of texts) {
      for (const form of [String(body), typed, rut, String(body).slice(0, -3)]) expect(text).not.toContain(form);
    }
  });

  it('scopes and objectives: a non-empty subset narrows the consent; empty or unknown values are refused', async () => {
    const interactionId = await openInteraction();
    const refusals: Array<[Record<string, unknown>, { field: string; reason: string }]> = [
      [{ objectiveCodes: [] }, { field: 'objectiveCodes', reason: expect.any(String) }],
      [{ scopeIds: [] }, { field: 'scopeIds', reason: expect.any(String) }],
      [{ objectiveCodes: ['02', '07'] }, { field: 'objectiveCodes[1]', reason: 'not_in_configuration' }],
      [{ scopeIds: ['redec-unknown'] }, { field: 'scopeIds[0]', reason: 'not_in_configuration' }],
      [{ objectiveCodes: ['03', '03'] }, { field: 'objectiveCodes[1]', reason: expect.any(String) }],
    ];
    for (const [overrides, error] of refusals) {
      const response = await recordsNothing(() => grant(interactionId, grantBody(overrides)));
      expectValidationError(response, [error]);
    }

    const narrowed = await granted(grantBody({ objectiveCodes: ['03'], scopeIds: ['redec-debt-history'] }), undefined, interactionId);
    expect((await readConsent(narrowed.redecConsentId)).body.objectiveCodes).toEqual(['03']);
    const [fact] = await api.store.readStream(redecStreams.consent(tenantId, narrowed.redecConsentId), { maxCount: 1 });
    expect((fact.data as { scopes: unknown }).scopes).toEqual([{ scopeId: 'redec-debt-history', dataCategoryCode: 'redec.consolidated_debt_history' }]);

    const everything = await granted(grantBody());
    expect((await readConsent(everything.redecConsentId)).body.objectiveCodes).toEqual(['02', '03']);
    const [allFact] = await api.store.readStream(redecStreams.consent(tenantId, everything.redecConsentId), { maxCount: 1 });
    expect((allFact.data as { scopes: Array<{ scopeId: string }> }).scopes.map((s) => s.scopeId)).toEqual(['redec-debt', 'redec-debt-history']);
  });

  it('an identical retry answers the first grant; a different second grant is 409 redec_interaction_already_granted and changes nothing', async () => {
    const interactionId = await openInteraction();
    const body = grantBody();
    const first = await granted(body, undefined, interactionId);
    const retry = await recordsNothing(() => grant(interactionId, body));
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first);

    for (const different of [{ ...body, sourceReference: 'another-capture' }, { ...body, occurredAt: body.occurredAt - 1 }, { ...body, objectiveCodes: ['02'] }]) {
      const conflict = await recordsNothing(() => grant(interactionId, different));
      expect(conflict.status).toBe(409);
      expect(conflict.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(conflict.body).toMatchObject({ status: 409, code: 'redec_interaction_already_granted' });
    }

    const read = await readConsent(first.redecConsentId);
    expect(read.body).toMatchObject({ internalConsentCode: first.internalConsentCode, grantedAt: body.occurredAt, objectiveCodes: ['02', '03'] });
  });

  it('twenty concurrent identical grants of one interaction record one consent, claim one internal code, and give all twenty the same answer', async () => {
    const subject = await resolveVerifiedCustomer();
    const interactionId = await openInteraction(configurations.digital, subject);
    const body = grantBody();
    const before = await api.store.headPosition();
    const responses = await Promise.all(Array.from({ length: 20 }, () => grant(interactionId, body)));
    expect(responses.map((r) => r.status)).toEqual(responses.map(() => 201));
    // Issue 13: concurrent grants of one consent draw the same code and leave one claim, not one per request.
    const claims = (await api.store.readAll({ after: before })).filter((e) => e.type === 'InternalConsentCodeClaimed');
    expect(claims.map((e) => (e.data as { redecConsentId: string }).redecConsentId)).toEqual([responses[0].body.redecConsentId]);
    for (const response of responses) expect(response.body).toEqual(responses[0].body);
    issuedCodes.set(responses[0].body.internalConsentCode, responses[0].body.redecConsentId);

    const listed = await customerConsents(subject);
    expect(listed.status).toBe(200);
    expect(listed.body.consents).toHaveLength(1);
    expect(listed.body.consents[0]).toMatchObject({ redecConsentId: responses[0].body.redecConsentId, internalConsentCode: responses[0].body.internalConsentCode });
    expect(await api.store.readStream(redecStreams.consent(tenantId, responses[0].body.redecConsentId))).toHaveLength(1);
  });

  it('initialAccessValidUntil is the end of the 15th banking business day after the local day of grantedAt; status is granted', async () => {
    const now = Date.now();
    const startOfToday = startOfLocalDayOf(now);
    const occurredAts = [
      now - MINUTE,
      // 00:00:30 local: the grant's own day still never counts.
      startOfToday + 30_000 < now - 1_000 ? startOfToday + 30_000 : startOfLocalDayOf(startOfToday - 1) + 30_000,
      // 23:59:30 local, the day before yesterday.
      startOfLocalDayOf(startOfToday - 1) - 30_000,
      now - 6 * DAY - 3 * 3_600_000,
    ];
    const calendar = bankingCalendar();
    for (const occurredAt of occurredAts) {
      const consent = await granted(grantBody({ occurredAt }));
      const expected = initialAccessValidUntil(occurredAt, calendar);
      expect(consent.initialAccessValidUntil).toBe(expected);
      // Counted independently: the last millisecond of the 15th banking day after the grant's local day.
      const lastDay = fifteenthBankingDayAfter(occurredAt);
      expect(localDay(consent.initialAccessValidUntil)).toBe(lastDay);
      expect(localDay(consent.initialAccessValidUntil + 1)).not.toBe(lastDay);

      const read = await readConsent(consent.redecConsentId);
      expect(read.body).toMatchObject({ status: 'granted', grantedAt: occurredAt, initialAccessValidUntil: expected, retentionUntil: null, retentionBasis: null });
    }
  });

  it('GET /v1/redec/consents/{id} right after the grant shows every field of the regulatory representation; the other reads agree', async () => {
    const occurredAt = Date.now() - 3 * MINUTE;
    const interactionId = await openInteraction();
    const consent = await granted(grantBody({ occurredAt, objectiveCodes: ['02'] }), undefined, interactionId);
    expect(consent).toMatchObject({ redecConsentId: expect.any(String), consentActionId: expect.any(String), grantedAt: occurredAt, artifactStatus: expect.stringMatching(/^(pending|ready)$/) });
    expect(consent.recordedAt).toBeGreaterThanOrEqual(occurredAt);
    expect(consent.recordedAt).toBeLessThanOrEqual(Date.now());

    const read = await readConsent(consent.redecConsentId);
    expect(read.status).toBe(200);
    expect(Object.keys(read.body).filter((k) => SPEC_2_5_FIELDS.includes(k)).sort()).toEqual(SPEC_2_5_FIELDS);
    expect(read.body).toMatchObject({
      redecConsentId: consent.redecConsentId,
      internalConsentCode: consent.internalConsentCode,
      customerId,
      status: 'granted',
      channel: 'digital',
      captureTiming: 'deferred_external',
      grantedAt: occurredAt,
      initialAccessValidUntil: consent.initialAccessValidUntil,
      finalityCode: '2',
      mediumCode: '1',
      objectiveCodes: ['02'],
      revocation: null,
      creditExtensions: [],
      artifactStatus: expect.stringMatching(/^(pending|ready)$/),
      retentionUntil: null,
      retentionBasis: null,
    });

    const byCode = await lookup({ internalConsentCode: consent.internalConsentCode });
    expect(byCode.status).toBe(200);
    expect(byCode.body).toEqual({ consents: [{ ...read.body, artifactStatus: expect.any(String) }] });
    const listed = await customerConsents(customerId);
    expect(listed.body.consents).toEqual(expect.arrayContaining([expect.objectContaining({ ...read.body, artifactStatus: expect.any(String), kind: 'redec' })]));
  });

  it("another tenant's consent, interaction or customer is not found, and unknown ids are 404", async () => {
    expect((await readConsent(other.redecConsentId)).status).toBe(404);
    expect((await readConsent(other.redecConsentId)).body.code).toBe('NOT_FOUND');
    expect((await readConsent(other.redecConsentId, other.key)).status).toBe(200);
    expect((await readConsent(randomUUID())).status).toBe(404);
    expect((await readConsent('not-a-uuid')).status).toBe(404);

    for (const interactionId of [randomUUID(), other.interactionId, 'not-a-uuid']) {
      const response = await recordsNothing(() => grant(interactionId, grantBody()));
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('NOT_FOUND');
    }

    for (const id of [randomUUID(), other.customerId]) {
      const response = await customerConsents(id);
      expect(response.status).toBe(404);
      expect(response.body.code).toBe('NOT_FOUND');
    }
    expect((await customerConsents(other.customerId, other.key)).body.consents).toHaveLength(1);
  });

  it('GET /v1/redec/consents looks up by exactly one parameter and never pages; an unknown or foreign value gives an empty list', async () => {
    const exactlyOne = [
      { field: 'internalConsentCode', reason: 'exactly_one_lookup_parameter' },
      { field: 'creditOperationReference', reason: 'exactly_one_lookup_parameter' },
    ];
    expectValidationError(await lookup({}), exactlyOne, 'exactly_one_lookup_parameter');
    expectValidationError(await lookup({ internalConsentCode: other.internalConsentCode, creditOperationReference: 'op-1' }), exactlyOne, 'exactly_one_lookup_parameter');
    // Paging is the export's (GET /v1/redec/consent-exports): the lookup takes no page parameter, with a lookup parameter or without.
    for (const [field, value] of [['limit', '5'], ['cursor', 'bm90LWEtY3Vyc29y'], ['updatedAfter', '1']]) {
      expectValidationError(await lookup({ [field]: value }), [{ field, reason: 'unknown_property' }]);
      expectValidationError(await lookup({ internalConsentCode: other.internalConsentCode, [field]: value }), [{ field, reason: 'unknown_property' }]);
    }
    expectValidationError(await lookup({ customerId }), [{ field: 'customerId', reason: 'unknown_property' }]);

    expect((await lookup({ internalConsentCode: 'ZZZZZZZZZZZZZZZZZZZZ' })).body).toEqual({ consents: [] });
    const foreign = await lookup({ internalConsentCode: other.internalConsentCode });
    expect(foreign.status).toBe(200);
    expect(foreign.body).toEqual({ consents: [] });
    expect((await lookup({ internalConsentCode: other.internalConsentCode }, other.key)).body.consents).toHaveLength(1);
    expect((await lookup({ creditOperationReference: 'op-unknown' })).body).toEqual({ consents: [] });
  });

  it("GET /v1/customers/{id}/consents lists a known customer's consents, oldest first", async () => {
    const subject = await resolveVerifiedCustomer();
    expect((await customerConsents(subject)).body).toEqual({ consents: [] });
    const occurredAt = Date.now() - 2 * DAY;
    const older = await granted(grantBody({ occurredAt }), undefined, await openInteraction(configurations.digital, subject));
    const newer = await granted(grantBody({ occurredAt: occurredAt + DAY }), undefined, await openInteraction(configurations.digital, subject));
    const listed = await customerConsents(subject);
    expect(listed.status).toBe(200);
    expect(listed.body.consents.map((c: { redecConsentId: string }) => c.redecConsentId)).toEqual([older.redecConsentId, newer.redecConsentId]);
    for (const consent of listed.body.consents) expect(consent).toMatchObject({ customerId: subject, kind: 'redec', status: 'granted' });
  });

  it('grant and interaction need consent:write; every read needs consent:read', async () => {
    const interactionId = await openInteraction();
    const interactionAsReader = await recordsNothing(() =>
      api.http.post('/v1/redec/consent-interactions').set(auth(readerOnly)).send({ configurationId: configurations.digital, customerId }),
    );
    expect(interactionAsReader.status).toBe(403);
    expect(interactionAsReader.body.code).toBe('INSUFFICIENT_SCOPE');
    const grantAsReader = await recordsNothing(() => grant(interactionId, grantBody(), readerOnly));
    expect(grantAsReader.status).toBe(403);
    expect(grantAsReader.body.code).toBe('INSUFFICIENT_SCOPE');

    const body = grantBody();
    const asWriter = await grant(interactionId, body, writerOnly);
    expect(asWriter.status).toBe(201);
    issuedCodes.set(asWriter.body.internalConsentCode, asWriter.body.redecConsentId);

    const reads = [
      () => readConsent(asWriter.body.redecConsentId, writerOnly),
      () => lookup({ internalConsentCode: asWriter.body.internalConsentCode }, writerOnly),
      () => customerConsents(customerId, writerOnly),
    ];
    for (const read of reads) {
      const response = await read();
      expect(response.status).toBe(403);
      expect(response.body.code).toBe('INSUFFICIENT_SCOPE');
    }
    expect((await readConsent(asWriter.body.redecConsentId, readerOnly)).status).toBe(200);
    expect((await lookup({ internalConsentCode: asWriter.body.internalConsentCode }, readerOnly)).body.consents).toHaveLength(1);
    expect((await customerConsents(customerId, readerOnly)).status).toBe(200);
  });

  it('internalConsentCode: 20 characters of 0-9A-Z, never all 9 nor all 0, distinct in the tenant, and it never changes', async () => {
    expect(issuedCodes.size).toBeGreaterThanOrEqual(20);
    const consentIds = new Set(issuedCodes.values());
    expect(consentIds.size).toBe(issuedCodes.size);
    for (const [code, redecConsentId] of issuedCodes) {
      expect(code).toMatch(/^[0-9A-Z]{20}$/);
      expect(code).not.toMatch(/^9+$/);
      expect(code).not.toMatch(/^0+$/);
      const read = await readConsent(redecConsentId);
      expect(read.body.internalConsentCode).toBe(code);
      const found = await lookup({ internalConsentCode: code });
      expect(found.body.consents.map((c: { redecConsentId: string }) => c.redecConsentId)).toEqual([redecConsentId]);
    }
    expect(issuedCodes.has(other.internalConsentCode)).toBe(false);
  });
});
