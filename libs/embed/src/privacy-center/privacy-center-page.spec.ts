import { ReadableTerms, RegulatoryRepresentation, ReportedRedecConsent, SubjectRecords } from '@ledger/redec';
import { PrivacyCenterView, codesShownBy, renderPrivacyCenter } from './privacy-center-page';

const DAY = 86_400_000;
// 2026-03-10 15:30 UTC: 12:30 in Santiago (UTC-3 in summer).
const GRANTED_AT = Date.UTC(2026, 2, 10, 15, 30);

const representation = (overrides: Partial<RegulatoryRepresentation> = {}): RegulatoryRepresentation => ({
  redecConsentId: '6f1c2a54-8a63-4d0e-9a4e-2b7a1e0c9d11',
  internalConsentCode: 'A1B2C3D4E5F6G7H8I9J0',
  customerId: '0d8e3b1a-5c4f-4e2d-8b7a-9c6d5e4f3a21',
  status: 'granted',
  channel: 'digital',
  captureTiming: 'deferred_external',
  grantedAt: GRANTED_AT,
  initialAccessValidUntil: GRANTED_AT + 23 * DAY,
  finalityCode: '2',
  mediumCode: '1',
  objectiveCodes: ['02'],
  revocation: null,
  creditExtensions: [],
  artifactStatus: 'ready',
  retentionUntil: null,
  retentionBasis: null,
  ...overrides,
});

const redecConsent = (overrides: Partial<ReportedRedecConsent> = {}): ReportedRedecConsent => ({
  templateKey: 'redec-evaluacion',
  configurationVersion: 1,
  consentTitle: 'Consulta al Registro de Deuda Consolidada',
  representation: representation(),
  accesses: [
    {
      redecAccessId: '9a8b7c6d-1e2f-4a3b-8c4d-5e6f7a8b9c0d',
      decidedAt: GRANTED_AT + DAY,
      status: 'authorized',
      denyReasonCode: null,
      dataCategoryCode: 'redec.consolidated_debt_record',
      objectiveCode: '02',
      accessPurpose: null,
      throughMandatary: false,
      confirmation: { outcome: { kind: 'accessed', accessedAt: GRANTED_AT + DAY }, confirmedAt: GRANTED_AT + DAY },
    },
  ],
  notices: [],
  ...overrides,
});

const records = (overrides: Partial<SubjectRecords> = {}): SubjectRecords => ({
  asOf: GRANTED_AT + 2 * DAY,
  dataSubject: { customerId: representation().customerId, userReference: 'cliente-42', identifiers: [], registeredAt: GRANTED_AT, erasedAt: null },
  redecConsents: [redecConsent()],
  generalConsents: [],
  legalHolds: [],
  rightsRequests: [],
  ...overrides,
});

const view = (overrides: Partial<PrivacyCenterView> = {}): PrivacyCenterView => ({
  bank: { displayName: 'Banco Ejemplo', logo: null, accentColor: null },
  records: records(),
  terms: new ReadableTerms({ finality: { '2': 'Evaluar su solicitud de crédito' }, objective: { '02': 'Un crédito nuevo' } }),
  revokeAction: '/privacy-center/pages/ref/revocations',
  requestAction: '/privacy-center/pages/ref/rights-requests',
  endAction: '/privacy-center/pages/ref/end',
  csrf: 'csrf-value',
  notice: null,
  returnUrl: null,
  expiresAt: GRANTED_AT + 2 * DAY,
  requestKinds: ['access', 'blocking'],
  ...overrides,
});

/** What the person reads: the page without its hidden fields, which carry the consent a form acts on. */
const shown = (page: string) => page.replace(/<input type="hidden"[^>]*>/g, '');

describe('codesShownBy', () => {
  it('lists every code the page shows: each consent’s purpose and objectives, and the objective of each access', () => {
    const [access] = redecConsent().accesses;
    const shownCodes = codesShownBy(records({ redecConsents: [redecConsent({ accesses: [access, { ...access, objectiveCode: '09' }] })] }));
    expect(shownCodes).toEqual([
      { kind: 'finality', code: '2' },
      { kind: 'objective', code: '02' },
      { kind: 'objective', code: '02' },
      { kind: 'objective', code: '09' },
    ]);
  });
});

describe('renderPrivacyCenter', () => {
  it('shows each code with its meaning, and each instant on Santiago’s clock', () => {
    const page = renderPrivacyCenter(view());
    expect(page).toContain('<dt>Para qué:</dt><dd>Evaluar su solicitud de crédito <span class="code">(código 2)</span></dd>');
    expect(page).toContain('<li>Un crédito nuevo <span class="code">(código 02)</span></li>');
    expect(page).toContain('<strong>11-03-2026, 12:30</strong> (hora de Santiago).');
    expect(page).toContain('<dt>Permite nuevas consultas hasta:</dt><dd>02-04-2026</dd>');
  });

  it('names a code the bank left without a meaning as a code, never as nothing', () => {
    const page = renderPrivacyCenter(view({ terms: new ReadableTerms({ finality: { '2': 'Evaluar su solicitud de crédito' } }) }));
    expect(page).toContain('<li>Código 02</li>');
  });

  it('shows no internal id where the person reads', () => {
    const page = shown(renderPrivacyCenter(view()));
    const { redecConsentId, internalConsentCode, customerId } = representation();
    for (const id of [redecConsentId, internalConsentCode, customerId, redecConsent().accesses[0].redecAccessId]) expect(page).not.toContain(id);
  });

  it('escapes what the bank and the person wrote', () => {
    const page = renderPrivacyCenter(view({ records: records({ redecConsents: [redecConsent({ consentTitle: '<script>alert(1)</script>' })] }), bank: { displayName: 'Banco "A&B"', logo: null, accentColor: null } }));
    expect(page).not.toContain('<script>');
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page).toContain('Banco &quot;A&amp;B&quot;');
  });

  it('offers a revocation for a consent in force, warns while a credit keeps it, and none once revoked', () => {
    expect(renderPrivacyCenter(view())).toContain('<legend>Revocar «Consulta al Registro de Deuda Consolidada»</legend>');
    const extended = renderPrivacyCenter(view({ records: records({ redecConsents: [redecConsent({ representation: representation({ status: 'extended' }) })] }) }));
    expect(extended).toContain('<dt>Estado:</dt><dd>Vigente por un crédito en curso</dd>');
    expect(extended).toContain('Este consentimiento respalda un crédito que usted tiene vigente.');
    const kept = renderPrivacyCenter(
      view({ records: records({ redecConsents: [redecConsent({ representation: representation({ status: 'extended', revocation: { revokedAt: GRANTED_AT + DAY, channel: 'digital', effective: false, effectiveAt: null, correctedAt: null } }) })] }) }),
    );
    expect(kept).toContain('<dt>Revocado:</dt><dd>11-03-2026 (tendrá efecto cuando termine el crédito en curso)</dd>');
    expect(kept).not.toContain('<legend>Revocar');
  });

  it('says why a denied access was denied, and that the registry was not queried', () => {
    const [authorized] = redecConsent().accesses;
    const denied = { ...authorized, status: 'denied' as const, denyReasonCode: 'redec_initial_window_expired', confirmation: null };
    const page = renderPrivacyCenter(view({ records: records({ redecConsents: [redecConsent({ accesses: [denied] })] }) }));
    expect(page).toContain('Consulta rechazada: el plazo para nuevas consultas había terminado. No se consultó el registro.');
  });

  it('announces an action’s outcome as a status, and a refusal as an alert', () => {
    expect(renderPrivacyCenter(view({ notice: 'revocation_kept' }))).toContain('<p class="notice" role="status">Registramos la revocación, pero');
    expect(renderPrivacyCenter(view({ notice: 'refused' }))).toContain('<p class="notice" role="alert">No pudimos verificar');
    expect(renderPrivacyCenter(view())).not.toContain('class="notice"');
  });

  it('offers the request kinds it is given, each required to choose one, with the deadline of an open request', () => {
    const page = renderPrivacyCenter(
      view({
        records: records({
          rightsRequests: [
            { rightsRequestId: 'r-1', kind: 'access', status: 'received', receivedAt: GRANTED_AT, dueAt: GRANTED_AT + 30 * DAY, extended: false, outcome: null, resolvedAt: null, complaintDeadline: null, description: null, rectifications: [], history: [] },
          ],
        }),
      }),
    );
    expect([...page.matchAll(/<input type="radio" name="kind" value="([a-z_]+)" required>/g)].map((m) => m[1])).toEqual(['access', 'blocking']);
    expect(page).toContain('<strong>Acceso</strong>, presentada el 10-03-2026. Estado: Recibida. Plazo de respuesta: 09-04-2026.');
  });
});
