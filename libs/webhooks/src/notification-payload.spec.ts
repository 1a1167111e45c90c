import type { RecordedEvent } from '@ledger/event-store';
import { CONSENT_EVENT_TYPES, ConsentGranted, RevocationRecorded, RightsRequestReceived, RightsRequestResolved } from '@ledger/redec';
import { TenantDataKey } from '@ledger/platform';
import { NOTIFICATION_REQUIRED, REPORT_CREATED, RIGHTS_REQUEST_RECEIVED, RIGHTS_REQUEST_RESOLVED, WebhookMessage, messageToSend, notificationFor, serializeMessage, webhookMessageId } from './notification-payload';

const grantedAt = Date.UTC(2026, 10, 20, 15, 0, 0);
const recordedAt = grantedAt + 1_000;

const grantData: ConsentGranted['data'] = {
  redecConsentId: 'con-1',
  consentActionId: 'act-1',
  internalConsentCode: 'A1B2C3D4E5F6G7H8I9J0',
  interactionId: 'int-1',
  customerId: 'cus-1',
  configurationId: 'cfg-1',
  templateKey: 'redec-credit-evaluation',
  configurationVersion: 1,
  consentTitle: 'Consulta REDEC',
  consentText: 'Autorizo la consulta.',
  regulatoryProfile: 'baseline',
  channel: 'digital',
  captureTiming: 'deferred_external',
  finalityCode: '2',
  mediumCode: '1',
  objectiveCodes: ['02', '03'],
  scopes: [{ scopeId: 'redec-debt', dataCategoryCode: 'redec.consolidated_debt_record' }],
  targets: ['Banco Ejemplo'],
  obligationSourceSystem: 'core-loans',
  grantedAt,
  recordedAt,
  initialAccessValidUntil: grantedAt + 20 * 86_400_000,
  sourceSystem: 'web',
  sourceReference: 'cap-1',
  representation: null,
  reportableObligation: null,
  evidence: { kind: 'electronic', authentication: { method: 'clave_unica', reference: 'a-1' } },
  artifact: { origin: 'generated_pdf', status: 'pending', mediaType: 'application/pdf', contentSha256: null },
  grantRequestSha256: 'h',
};

const revokedAt = grantedAt + 5 * 86_400_000;
const revocationData = (effective: boolean): RevocationRecorded['data'] => ({
  redecConsentId: 'con-1',
  consentActionId: 'rev-1',
  internalConsentCode: 'A1B2C3D4E5F6G7H8I9J0',
  revokedAt,
  channel: 'phone',
  sourceType: 'direct',
  identityAssurance: 'client_authenticated',
  effective,
  recordedAt: revokedAt + 2_000,
});

function recorded(type: string, data: unknown, id = '0b7f4c1e-9a3d-4e2b-8c6f-5d1a2b3c4d5e', at = recordedAt): RecordedEvent {
  return {
    id,
    type,
    data,
    metadata: { tenantId: 'ten-1', correlationId: 'cor-1', recordedAt: at, schemaVersion: 1 },
    streamId: 'redec-consent-ten-1-con-1',
    revision: 0,
    position: 42,
    created: at + 5,
    integrity: { hash: 'h', previousHash: null },
  };
}

describe('webhookMessageId', () => {
  it('is evt_ and the event uuid without dashes, in lower case', () => {
    expect(webhookMessageId('0b7f4c1e-9a3d-4e2b-8c6f-5d1a2b3c4d5e')).toBe('evt_0b7f4c1e9a3d4e2b8c6f5d1a2b3c4d5e');
    expect(webhookMessageId('0B7F4C1E-9A3D-4E2B-8C6F-5D1A2B3C4D5E')).toBe('evt_0b7f4c1e9a3d4e2b8c6f5d1a2b3c4d5e');
  });

  it('refuses an id that is not a uuid rather than make a message id from it', () => {
    for (const id of ['', 'con-1', '0b7f4c1e9a3d4e2b8c6f5d1a2b3c4d5e', '0b7f4c1e-9a3d-4e2b-8c6f-5d1a2b3c4d5e.x']) {
      expect(() => webhookMessageId(id)).toThrow(/uuid/);
    }
  });
});

describe('notificationFor', () => {
  it('gives a grant notification with the grant fields, dated by the fact', () => {
    expect(notificationFor(recorded('ConsentGranted', grantData))).toStrictEqual({
      id: 'evt_0b7f4c1e9a3d4e2b8c6f5d1a2b3c4d5e',
      type: NOTIFICATION_REQUIRED,
      createdAt: recordedAt,
      data: {
        notification_reason: 'grant',
        internal_consent_code: 'A1B2C3D4E5F6G7H8I9J0',
        redec_consent_id: 'con-1',
        consent_action_id: 'act-1',
        channel: 'digital',
        granted_at: grantedAt,
        purpose: '2',
        medium: '1',
        objectives: ['02', '03'],
      },
    });
  });

  it('gives a revoke notification with revoked_at and none of the grant fields', () => {
    const revocation = recorded('RevocationRecorded', revocationData(true), '6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b', revokedAt + 2_000);
    expect(notificationFor(revocation)).toStrictEqual({
      id: 'evt_6f1e2d3c4b5a49788a6b5c4d3e2f1a0b',
      type: NOTIFICATION_REQUIRED,
      createdAt: revokedAt + 2_000,
      data: {
        notification_reason: 'revoke',
        internal_consent_code: 'A1B2C3D4E5F6G7H8I9J0',
        redec_consent_id: 'con-1',
        consent_action_id: 'rev-1',
        channel: 'phone',
        revoked_at: revokedAt,
      },
    });
  });

  it('gives one for a revocation kept without effect too: the data subject must be told it was recorded', () => {
    expect(notificationFor(recorded('RevocationRecorded', revocationData(false)))?.data).toMatchObject({ notification_reason: 'revoke', consent_action_id: 'rev-1' });
  });

  it('takes createdAt from the recording metadata, not from the commit time or the grant instant', () => {
    expect(notificationFor(recorded('ConsentGranted', grantData, undefined, recordedAt + 60_000))?.createdAt).toBe(recordedAt + 60_000);
  });

  it('gives the same message for the same fact, so a replay or a retry is the same delivery', () => {
    const event = recorded('ConsentGranted', grantData);
    expect(serializeMessage(notificationFor(event)!)).toBe(serializeMessage(notificationFor(structuredClone(event))!));
  });

  it('does not share the objectives array with the fact', () => {
    const event = recorded('ConsentGranted', { ...grantData, objectiveCodes: ['02'] });
    const message = notificationFor(event) as WebhookMessage & { data: { objectives: string[] } };
    message.data.objectives.push('09');
    expect((event.data as ConsentGranted['data']).objectiveCodes).toEqual(['02']);
  });

  it('gives nothing for every other fact of a consent (there is no correction notice) or any other stream', () => {
    const others = [...CONSENT_EVENT_TYPES].filter((type) => type !== 'ConsentGranted' && type !== 'RevocationRecorded');
    expect(others).toEqual(expect.arrayContaining(['RevocationCorrected', 'NotificationEvidenceRecorded', 'CreditExtensionRegistered']));
    for (const type of [...others, 'InteractionCreated', 'WebhookEndpointRegistered', 'consentgranted']) {
      expect(notificationFor(recorded(type, grantData))).toBeNull();
    }
  });
});

describe('report.created', () => {
  const rendered = {
    reportId: 'rep-1',
    kind: 'rdc30',
    periodStart: 1,
    periodEnd: 2,
    layoutVersion: 'rdc30-2026.1',
    contentSha256: 'a'.repeat(64),
    size: 274,
    records: 1,
    metadata: { totalRecords: 1 },
    renderedAt: recordedAt,
  };

  it('is built from ReportRendered alone, without the cover-sheet metadata or any byte of the file (a fact from before decision 0045, hash in clear)', () => {
    const message = notificationFor(recorded('ReportRendered', rendered))!;
    expect(message.type).toBe(REPORT_CREATED);
    expect(JSON.parse(serializeMessage(message))).toEqual({
      id: message.id,
      type: 'report.created',
      createdAt: recordedAt,
      data: { report_id: 'rep-1', kind: 'rdc30', period_start: 1, period_end: 2, records: 1, content_sha256: 'a'.repeat(64), layout_version: 'rdc30-2026.1' },
    });
  });

  it("keeps the hash sealed under the report's key in the queued message, opens it only to send, and sends nothing once the key is destroyed", async () => {
    const key = TenantDataKey.generate('tenant', 'rk');
    const hash = 'b'.repeat(64);
    const { contentSha256: _plain, ...current } = { ...rendered, protectedContentSha256: key.encrypt(hash), contentBlob: 'c'.repeat(64) };
    const queued = notificationFor(recorded('ReportRendered', current))!;
    expect(JSON.stringify(queued)).not.toContain(hash);
    expect(queued.data).toMatchObject({ report_id: 'rep-1', protected_content_sha256: current.protectedContentSha256 });

    const sent = (await messageToSend('tenant', queued, { keyOf: async (_t, reportId) => (reportId === 'rep-1' ? key : null) }))!;
    expect(JSON.parse(serializeMessage(sent)).data).toEqual({ report_id: 'rep-1', kind: 'rdc30', period_start: 1, period_end: 2, records: 1, content_sha256: hash, layout_version: 'rdc30-2026.1' });
    expect(await messageToSend('tenant', queued, { keyOf: async () => null })).toBeNull();
    // A message with nothing sealed goes as it is.
    const grant = notificationFor(recorded('ConsentGranted', grantData))!;
    expect(await messageToSend('tenant', grant, { keyOf: async () => null })).toBe(grant);
  });
});

describe('rights request messages', () => {
  const received: RightsRequestReceived['data'] = {
    rightsRequestId: 'rr-1',
    customerId: 'cus-1',
    kind: 'blocking',
    receivedAt: 1,
    channel: 'web',
    sourceSystem: 'crm',
    sourceReference: 'case-1',
    descriptionCiphertext: 'v2.sealed',
    dueAt: 2,
    calendarVersion: 'cl-2026.1',
    recordedAt,
  };

  it("announces a receipt with its deadline, never the data subject's words nor the bank's references", () => {
    const message = notificationFor(recorded('RightsRequestReceived', received))!;
    expect(message.type).toBe(RIGHTS_REQUEST_RECEIVED);
    expect(serializeMessage(message)).toBe(
      `{"id":"${message.id}","type":"rights_request.received","createdAt":${recordedAt},"data":{"kind":"blocking","rights_request_id":"rr-1","customer_id":"cus-1","received_at":1,"due_at":2}}`,
    );
  });

  it('announces a resolution with its outcome and complaint deadline, not how the answer was sent', () => {
    const resolved: RightsRequestResolved['data'] = {
      rightsRequestId: 'rr-1',
      resolvedAt: 3,
      outcome: 'rejected',
      reason: 'not the data subject',
      response: { channel: 'email', sentAt: 3, contentSha256: 'a'.repeat(64) },
      complaintDeadline: 4,
      recordedAt,
    };
    const message = notificationFor(recorded('RightsRequestResolved', resolved))!;
    expect(message.type).toBe(RIGHTS_REQUEST_RESOLVED);
    expect(JSON.parse(serializeMessage(message)).data).toEqual({ rights_request_id: 'rr-1', outcome: 'rejected', resolved_at: 3, complaint_deadline: 4 });
    expect(JSON.parse(serializeMessage(notificationFor(recorded('RightsRequestResolved', { ...resolved, outcome: 'approved', complaintDeadline: null }))!)).data.complaint_deadline).toBeNull();
  });

  it('sends nothing for the other steps of a request', () => {
    expect(notificationFor(recorded('RightsRequestAnalysisStarted', { rightsRequestId: 'rr-1', startedAt: 2, recordedAt }))).toBeNull();
    expect(notificationFor(recorded('RightsRequestExtended', { rightsRequestId: 'rr-1', extendedAt: 2, reason: 'x', dueAt: 9, calendarVersion: 'v', recordedAt }))).toBeNull();
  });
});

describe('serializeMessage', () => {
  const grant = notificationFor(recorded('ConsentGranted', grantData))!;
  const revoke = notificationFor(recorded('RevocationRecorded', revocationData(true)))!;

  it('writes the keys in the order docs/reference/events.md shows, compact', () => {
    expect(serializeMessage(grant)).toBe(
      '{"id":"evt_0b7f4c1e9a3d4e2b8c6f5d1a2b3c4d5e","type":"redec.notification.required","createdAt":' +
        recordedAt +
        ',"data":{"notification_reason":"grant","internal_consent_code":"A1B2C3D4E5F6G7H8I9J0","redec_consent_id":"con-1","consent_action_id":"act-1","channel":"digital","granted_at":' +
        grantedAt +
        ',"purpose":"2","medium":"1","objectives":["02","03"]}}',
    );
    expect(serializeMessage(revoke)).toBe(
      '{"id":"evt_0b7f4c1e9a3d4e2b8c6f5d1a2b3c4d5e","type":"redec.notification.required","createdAt":' +
        recordedAt +
        ',"data":{"notification_reason":"revoke","internal_consent_code":"A1B2C3D4E5F6G7H8I9J0","redec_consent_id":"con-1","consent_action_id":"rev-1","channel":"phone","revoked_at":' +
        revokedAt +
        '}}',
    );
  });

  it('round-trips every field of both kinds of message', () => {
    expect(JSON.parse(serializeMessage(grant))).toStrictEqual(grant);
    expect(JSON.parse(serializeMessage(revoke))).toStrictEqual(revoke);
  });

  it('gives the same bytes whatever order the message object was built in (e.g. read back from a queue)', () => {
    const { data, createdAt, type, id } = grant;
    const reordered = { data: Object.fromEntries(Object.entries(data).reverse()), createdAt, type, id } as unknown as WebhookMessage;
    expect(serializeMessage(reordered)).toBe(serializeMessage(grant));
  });

  it('leaves out anything a message object carries beyond the contract body', () => {
    const carrying = { ...grant, tenantId: 'ten-1', data: { ...grant.data, customerId: 'cus-1' } } as unknown as WebhookMessage;
    expect(serializeMessage(carrying)).toBe(serializeMessage(grant));
  });
});
