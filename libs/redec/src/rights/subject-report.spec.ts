import type { RecordedEvent } from '@ledger/event-store';
import { documentText } from '@ledger/artifacts/testing';
import { bankingCalendar } from '../calendar/banking-calendar';
import { grant, grantedAt } from '../consent/testing/consent-fixtures';
import { RIGHTS_DEADLINES } from '../profiles/profile-catalog';
import { decideReceiveRightsRequest, decideRightsTransition } from './rights-request.decider';
import { RightsRequestEvent, RightsRequestState, evolveRightsRequest } from './rights-request.events';
import { SubjectRecordFacts, subjectRecordsOf, subjectReportOf } from './subject-report';
import { renderSubjectReportPdf } from './subject-report-pdf';

// The subject's report (decision 0071) as a function of the facts: what was
// recorded after `asOf` is left out, whatever it is, and the same facts give
// the same report and the same PDF bytes.

const MINUTE = 60_000;
const asOf = grantedAt + 60 * MINUTE;
const policy = { calendar: bankingCalendar(), deadlines: RIGHTS_DEADLINES, callerClockSkewMs: 5 * MINUTE };

let position = 0;
/** A fact as the store gives it back, recorded at `recordedAt`. */
function recorded(streamId: string, type: string, data: object, recordedAt: number): RecordedEvent {
  position += 1;
  return { streamId, type, data, metadata: { tenantId: 'ten-1', recordedAt }, revision: 0, position, created: recordedAt, integrity: { hash: 'h', previousHash: null } } as unknown as RecordedEvent;
}
const sealed = (value: string) => ({ hash: `hash:${value}`, ciphertext: `sealed:${value}` });

const customer = [
  recorded('customer-ten-1-cus-1', 'CustomerRegistered', { customerId: 'cus-1', userReference: sealed('cliente-42'), identifiers: [{ system: 'cl-sii', type: 'rut', value: sealed('12345678-5'), verification: null }], registeredAt: grantedAt - MINUTE }, grantedAt - MINUTE),
  recorded('customer-ten-1-cus-1', 'LegalHoldPlaced', { customerId: 'cus-1', legalHoldId: 'hold-1', reason: 'litigio', reference: 'C-1', placedAt: asOf - MINUTE }, asOf - MINUTE),
  // After asOf: left out.
  recorded('customer-ten-1-cus-1', 'CustomerIdentifierLinked', { customerId: 'cus-1', identifier: { system: 'cl-passport', type: 'passport', value: sealed('P123'), verification: null }, linkedAt: asOf + 1 }, asOf + 1),
  recorded('customer-ten-1-cus-1', 'LegalHoldReleased', { customerId: 'cus-1', legalHoldId: 'hold-1', releasedAt: asOf + 1 }, asOf + 1),
];
const consentStream = 'redec-consent-ten-1-con-1';
const decided = (redecAccessId: string, decidedAt: number) =>
  recorded(
    `redec-access-ten-1-${redecAccessId}`,
    'AccessDecided',
    {
      redecAccessId,
      redecConsentId: 'con-1',
      request: { dataCategoryCode: 'redec.consolidated_debt_record', objectiveCode: '02', accessPurpose: 'evaluate_new_credit' },
      requestSha256: 'r',
      status: 'authorized',
      denyReasonCode: null,
      decidedAt,
      expiresAt: decidedAt + MINUTE,
      consentRevision: 0,
    },
    decidedAt,
  );
const consentFacts = [
  recorded(consentStream, 'ConsentGranted', grant.data, grant.data.recordedAt),
  decided('acc-1', grantedAt + 10 * MINUTE),
  recorded('redec-access-ten-1-acc-1', 'AccessConfirmed', { redecAccessId: 'acc-1', redecConsentId: 'con-1', outcome: { kind: 'accessed', accessedAt: grantedAt + 11 * MINUTE }, confirmedAt: grantedAt + 12 * MINUTE }, grantedAt + 12 * MINUTE),
  recorded('redec-obligation-ten-1-o', 'ObligationBound', { redecConsentId: 'con-1', bindingId: 'b-1' }, grantedAt + 13 * MINUTE),
  decided('acc-2', asOf + 1),
  recorded(consentStream, 'RevocationRecorded', { redecConsentId: 'con-1', revokedAt: asOf + 1 }, asOf + 1),
];
const receivedAt = grantedAt + 20 * MINUTE;
const request = decideReceiveRightsRequest(
  { rightsRequestId: 'rr-1', customerId: 'cus-1', kind: 'access', receivedAt, channel: 'web', sourceSystem: 'privacy-desk', sourceReference: 's-1', descriptionCiphertext: 'sealed:¿Qué datos tienen?' },
  policy,
  receivedAt,
);
const rectification = decideReceiveRightsRequest({ rightsRequestId: 'rr-2', customerId: 'cus-1', kind: 'rectification', receivedAt, channel: 'web', sourceSystem: 'privacy-desk', sourceReference: 's-2' }, policy, receivedAt);
const analysed: RightsRequestEvent[] = [
  ...request,
  ...decideRightsTransition(evolveRightsRequest(null, request[0]) as RightsRequestState, { to: 'in_analysis', occurredAt: asOf + 1 }, policy, asOf + 1),
];
const facts = (overrides: Partial<SubjectRecordFacts> = {}): SubjectRecordFacts => ({
  tenantId: 'ten-1',
  asOf,
  customer,
  redecConsents: [consentFacts],
  generalConsents: [],
  rightsRequests: [
    [...analysed, { type: 'RightsRequestDeadlineNoticed', data: { rightsRequestId: 'rr-1', customerId: 'cus-1', kind: 'access', notice: 'due_soon', dueAt: 0, recordedAt: receivedAt } }],
    [...rectification, { type: 'RightsRequestRectified', data: { rightsRequestId: 'rr-2', rectificationId: 'rec-1', rectifiedAt: receivedAt + MINUTE, record: { kind: 'customer' }, descriptionCiphertext: 'sealed:Dirección corregida', recordedAt: receivedAt + MINUTE } }],
  ],
  opened: new Map(['cliente-42', '12345678-5', 'P123', '¿Qué datos tienen?', 'Dirección corregida'].map((value) => [`sealed:${value}`, value])),
  ...overrides,
});
/** The report answering the access request rr-1, from the facts. */
const reportOf = (recordFacts: SubjectRecordFacts) => subjectReportOf({ rightsRequestId: 'rr-1', kind: 'access' }, subjectRecordsOf(recordFacts));

describe("the subject's report", () => {
  it('holds what was recorded by asOf and nothing later: identifiers, holds, consents, accesses with their outcomes, requests', () => {
    const report = reportOf(facts());
    expect(report.dataSubject).toEqual({
      customerId: 'cus-1',
      userReference: 'cliente-42',
      identifiers: [{ system: 'cl-sii', type: 'rut', value: '12345678-5', verification: null }],
      registeredAt: grantedAt - MINUTE,
      erasedAt: null,
    });
    expect(report.legalHolds).toEqual([{ legalHoldId: 'hold-1', reason: 'litigio', reference: 'C-1', placedAt: asOf - MINUTE, releasedAt: null }]);
    expect(report.redecConsents).toHaveLength(1);
    expect(report.redecConsents[0].representation).toMatchObject({ redecConsentId: 'con-1', status: 'granted', revocation: null });
    expect(report.redecConsents[0].accesses).toEqual([
      {
        redecAccessId: 'acc-1',
        decidedAt: grantedAt + 10 * MINUTE,
        status: 'authorized',
        denyReasonCode: null,
        dataCategoryCode: 'redec.consolidated_debt_record',
        objectiveCode: '02',
        accessPurpose: 'evaluate_new_credit',
        throughMandatary: false,
        confirmation: { outcome: { kind: 'accessed', accessedAt: grantedAt + 11 * MINUTE }, confirmedAt: grantedAt + 12 * MINUTE },
      },
    ]);
    // The service's reminder to the bank is no step the data subject saw; the analysis came after asOf.
    expect(report.rightsRequests).toEqual([
      expect.objectContaining({ rightsRequestId: 'rr-1', status: 'received', description: '¿Qué datos tienen?', rectifications: [], history: [{ step: 'received', occurredAt: receivedAt }] }),
      expect.objectContaining({
        rightsRequestId: 'rr-2',
        rectifications: [{ rectificationId: 'rec-1', rectifiedAt: receivedAt + MINUTE, record: { kind: 'customer' }, description: 'Dirección corregida' }],
        history: [{ step: 'received', occurredAt: receivedAt }, { step: 'rectified', occurredAt: receivedAt + MINUTE }],
      }),
    ]);
  });

  it('leaves out a consent granted, or a request recorded, after asOf', () => {
    const report = reportOf(facts({ asOf: grantedAt - 1 }));
    expect(report.redecConsents).toEqual([]);
    expect(report.rightsRequests).toEqual([]);
    expect(report.legalHolds).toEqual([]);
  });

  it('shows an erasure whatever asOf says, and the erased values as null', () => {
    const erased = recorded('customer-ten-1-cus-1', 'CustomerDataErased', { customerId: 'cus-1', dataKeyId: 'k', redecConsentIds: ['con-1'], retentionUntil: asOf, deletedBlobs: [], erasedAt: asOf + 5 * MINUTE }, asOf + 5 * MINUTE);
    const report = reportOf(facts({ customer: [...customer, erased], opened: new Map() }));
    expect(report.dataSubject).toMatchObject({ userReference: null, identifiers: [expect.objectContaining({ value: null })], erasedAt: asOf + 5 * MINUTE });
    expect(report.rightsRequests[0].description).toBeNull();
    expect(report.rightsRequests[1].rectifications[0].description).toBeNull();
  });

  it('renders the same report as the same PDF bytes, in Spanish, and another instant as other bytes', () => {
    const pdf = renderSubjectReportPdf(reportOf(facts()));
    expect(renderSubjectReportPdf(reportOf(facts())).equals(pdf)).toBe(true);
    expect(renderSubjectReportPdf(reportOf(facts({ asOf: asOf + 1 }))).equals(pdf)).toBe(false);
    const text = documentText(pdf).replace(/\s+/g, ' ');
    for (const expected of ['Informe de datos personales', 'solicitud de acceso', '12345678-5', grant.data.internalConsentCode, 'Autorizado', 'consultado el', 'Retención C-1', '¿Qué datos tienen?', '(UTC-03:00): Dirección corregida', 'En su registro de cliente', 'dato corregido', 'Página 1 de']) expect(text).toContain(expected);
  });
});
