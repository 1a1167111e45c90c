import { Customer, CustomerEvent, evolveCustomer } from '@ledger/ledger';
import { ConsentState, evolveConsent } from '../consent/consent.state';
import { addYears } from '../consent/regulatory-representation';
import { facts, given, grant, grantedAt, validUntil } from '../consent/testing/consent-fixtures';
import { CustomerRecords, blobsOf, consentsPastFloor, decideCustomerErasure, isSealedUnderTenantKey, retentionVerdict, valuesOfConsent, valuesRecordedBy } from './retention';

const DAY = 86_400_000;
const revokedAt = grantedAt + DAY;
const floor = addYears(revokedAt, 5);
const customerFacts = (...events: CustomerEvent[]): Customer =>
  [
    { type: 'CustomerRegistered', data: { customerId: 'cus-1', userReference: { hash: 'h', ciphertext: 'c' }, identifiers: [], registeredAt: grantedAt } } as CustomerEvent,
    ...events,
  ].reduce<Customer | null>(evolveCustomer, null)!;
const records = (consents: ConsentState[], customer = customerFacts(), generalConsents = 0, suppression: CustomerRecords['suppression'] = null): CustomerRecords => ({
  customer,
  consents,
  generalConsents,
  suppression,
  sealedUnderTenantKey: false,
});
const revoked = given(facts.revocation(revokedAt, true));
const hold: CustomerEvent = { type: 'LegalHoldPlaced', data: { customerId: 'cus-1', legalHoldId: 'lh-1', reason: 'litigio', reference: 'C-1', placedAt: revokedAt } };

describe('retention verdict (decision 0035)', () => {
  it('keeps a customer while a consent is within its floor, and makes it erasable the instant after', () => {
    expect(retentionVerdict(records([revoked]), floor)).toBe('retained');
    expect(retentionVerdict(records([revoked]), floor + 1)).toBe('erasable');
    expect(consentsPastFloor(records([revoked]), floor + 1)).toEqual([{ redecConsentId: 'con-1', customerId: 'cus-1', retentionUntil: floor, retentionBasis: 'revocation' }]);
    expect(consentsPastFloor(records([revoked]), floor)).toEqual([]);
  });

  it('counts the floor of a consent that lost validity from the end of its initial window', () => {
    const expired = given();
    expect(retentionVerdict(records([expired]), addYears(validUntil, 5))).toBe('retained');
    expect(retentionVerdict(records([expired]), addYears(validUntil, 5) + 1)).toBe('erasable');
  });

  it('keeps a customer any of whose consents is not past its floor: every consent must be', () => {
    const extended = given(facts.extension('ext-1', 'loan-1', grantedAt + 1000));
    expect(retentionVerdict(records([revoked, extended]), floor + 10 * 365 * DAY)).toBe('retained');
  });

  it('keeps a customer without consents, or with a general consent, which has no floor', () => {
    expect(retentionVerdict(records([]), floor + 1)).toBe('retained');
    expect(retentionVerdict(records([revoked], customerFacts(), 1), floor + 1)).toBe('retained');
  });

  it('makes a customer whose suppression was approved erasable once every floor passed, with no consent or only general ones, unless they consented again since (decision 0073)', () => {
    const suppression = { rightsRequestId: 'rr-1', generalConsentsSince: 0 };
    expect(retentionVerdict(records([], customerFacts(), 0, suppression), grantedAt)).toBe('erasable');
    expect(retentionVerdict(records([], customerFacts(), 2, suppression), grantedAt)).toBe('erasable');
    expect(retentionVerdict(records([revoked], customerFacts(), 1, suppression), floor)).toBe('retained');
    expect(retentionVerdict(records([revoked], customerFacts(), 1, suppression), floor + 1)).toBe('erasable');
    expect(retentionVerdict(records([], customerFacts(hold), 0, suppression), grantedAt)).toBe('on_legal_hold');
    expect(retentionVerdict(records([], customerFacts(), 2, { ...suppression, generalConsentsSince: 1 }), grantedAt)).toBe('retained');
    const erasure = decideCustomerErasure(records([], customerFacts(), 1, suppression), null, [], grantedAt);
    expect(erasure?.data).toMatchObject({ redecConsentIds: [], retentionUntil: null, rightsRequestId: 'rr-1', erasedAt: grantedAt });
  });

  it('passes by a customer on legal hold until the hold is released', () => {
    expect(retentionVerdict(records([revoked], customerFacts(hold)), floor + 1)).toBe('on_legal_hold');
    const released: CustomerEvent = { type: 'LegalHoldReleased', data: { customerId: 'cus-1', legalHoldId: 'lh-1', releasedAt: floor } };
    expect(retentionVerdict(records([revoked], customerFacts(hold, released)), floor + 1)).toBe('erasable');
  });

  it('decides the erasure fact for an erasable customer only, and then reads it as erased', () => {
    const now = floor + 1;
    const erasure = decideCustomerErasure(records([revoked]), 'ck_1', ['a'.repeat(64)], now);
    expect(erasure).toEqual({
      type: 'CustomerDataErased',
      data: { customerId: 'cus-1', dataKeyId: 'ck_1', redecConsentIds: ['con-1'], retentionUntil: floor, deletedBlobs: ['a'.repeat(64)], erasedAt: now },
    });
    expect(decideCustomerErasure(records([revoked], customerFacts(hold)), 'ck_1', [], now)).toBeNull();
    expect(decideCustomerErasure(records([revoked]), 'ck_1', [], floor)).toBeNull();
    expect(retentionVerdict(records([revoked], customerFacts(erasure!)), now)).toBe('erased');
  });
});

describe('blobsOf', () => {
  it('names held evidence and the rendered certificate, never a resource held elsewhere', () => {
    const held = evolveConsent(
      null,
      {
        ...grant,
        data: {
          ...grant.data,
          evidence: { kind: 'physical_document', digitizedAt: grantedAt, mediaType: 'application/pdf', content: { origin: 'held', contentSha256: 'b'.repeat(64), size: 10 } },
          artifact: { origin: 'supplied', status: 'ready', mediaType: 'application/pdf', contentSha256: 'b'.repeat(64) },
        },
      },
      'ten-1',
    )!;
    expect(blobsOf(held)).toEqual(['b'.repeat(64)]);
    const external = evolveConsent(
      null,
      {
        ...grant,
        data: {
          ...grant.data,
          evidence: { kind: 'physical_document', digitizedAt: grantedAt, mediaType: 'application/pdf', content: { origin: 'external_reference', externalReference: 'dms://1', contentSha256: 'c'.repeat(64) } },
          artifact: { origin: 'external_reference', status: 'ready', mediaType: 'application/pdf', contentSha256: 'c'.repeat(64) },
        },
      },
      'ten-1',
    )!;
    expect(blobsOf(external)).toEqual([]);
    const certificate = given({ type: 'ArtifactStored', data: { redecConsentId: 'con-1', contentSha256: 'd'.repeat(64), size: 900, mediaType: 'application/pdf', storedAt: grantedAt } });
    expect(blobsOf(certificate)).toEqual(['d'.repeat(64)]);
    expect(blobsOf(given())).toEqual([]);
  });
});

describe('values sealed under the tenant key, before decision 0035', () => {
  const underCustomerKey = { hash: 'h', ciphertext: 'v2.ck_0123456789abcdef.iv.tag.ct' };
  const underTenantKey = { hash: 'h', ciphertext: 'v2.dk_0123456789abcdef.iv.tag.ct' };

  it('tells a value under the tenant key from one under the customer key by the key its ciphertext names', () => {
    expect(isSealedUnderTenantKey(underCustomerKey)).toBe(false);
    expect(isSealedUnderTenantKey(underTenantKey)).toBe(true);
  });

  it("reads the userReference and identifiers of the customer's facts, and a representative's RUT of its consents", () => {
    const identifier = (value: typeof underCustomerKey) => ({ system: 'cl-sii', type: 'rut', value, verification: null });
    const registered: CustomerEvent = { type: 'CustomerRegistered', data: { customerId: 'cus-1', userReference: underTenantKey, identifiers: [identifier(underCustomerKey)], registeredAt: grantedAt } };
    expect(valuesRecordedBy(registered)).toEqual([underTenantKey, underCustomerKey]);
    expect(valuesRecordedBy({ type: 'CustomerIdentifierLinked', data: { customerId: 'cus-1', identifier: identifier(underTenantKey), linkedAt: grantedAt } })).toEqual([underTenantKey]);
    expect(valuesRecordedBy(hold)).toEqual([]);
    const represented = evolveConsent(null, { ...grant, data: { ...grant.data, representation: { type: 'representative', identifierRut: underTenantKey, identifierRutMasked: '12.***.***-5', authorityBasis: 'reporter_asserted_representation', authorityReference: 'p-1', assertedAt: grantedAt } } }, 'ten-1')!;
    expect(valuesOfConsent(represented)).toEqual([underTenantKey]);
    expect(valuesOfConsent(revoked)).toEqual([]);
  });
});
