import { Customer, CustomerDataErased, CustomerEvent, ProtectedValue } from '@ledger/ledger';
import { CUSTOMER_KEY_PREFIX, protectedValueKeyId } from '@ledger/platform';
import { ConsentState } from '../consent/consent.state';
import { RetentionBasis, deriveStatus } from '../consent/regulatory-representation';

/** What retention reads of one customer of a tenant: its facts, and its consents' facts. */
export interface CustomerRecords {
  customer: Customer;
  consents: ConsentState[];
  /** General (non-REDEC) consents: they have no retention floor yet, so they keep the customer's data (decision 0035). */
  generalConsents: number;
  /**
   * The data subject's suppression request answered `approved`, if any, and
   * how many general consents they granted after it: their data is then
   * kept only as long as a floor requires, unless they consented again
   * (decision 0073).
   */
  suppression: { rightsRequestId: string; generalConsentsSince: number } | null;
  /**
   * Some value of the customer was recorded under the tenant's key, before
   * decision 0035: destroying the customer's key does not make it
   * unreadable to a holder of the master key.
   */
  sealedUnderTenantKey: boolean;
}

export interface ConsentPastFloor {
  redecConsentId: string;
  customerId: string;
  retentionUntil: number;
  retentionBasis: RetentionBasis;
}

/**
 * Where a customer stands, as of `now` (decision 0035):
 * - `erased`: its data key was destroyed already;
 * - `retained`: some consent is still within its floor (or has none yet,
 *   being valid or extended), it holds a general consent, or it has no
 *   consent at all (nothing says its data has served its purpose), the
 *   last two unless the data subject's suppression was approved and they
 *   granted no general consent since (decision 0073): that says it has;
 * - `on_legal_hold`: every consent is past its floor, but a hold is in force;
 * - `erasable`: every consent is past its floor and no hold is in force.
 */
export type RetentionVerdict = 'erased' | 'retained' | 'on_legal_hold' | 'erasable';

export function retentionVerdict(records: CustomerRecords, now: number): RetentionVerdict {
  const { customer, consents, generalConsents, suppression } = records;
  if (customer.erasedAt !== null) return 'erased';
  const suppressed = suppression !== null && suppression.generalConsentsSince === 0;
  if (!suppressed && (consents.length === 0 || generalConsents > 0)) return 'retained';
  if (!consents.every((consent) => pastFloor(consent, now))) return 'retained';
  return customer.legalHolds.some((h) => h.releasedAt === null) ? 'on_legal_hold' : 'erasable';
}

/** The customer's consents whose floor has passed, as of `now`. */
export function consentsPastFloor(records: CustomerRecords, now: number): ConsentPastFloor[] {
  return records.consents.flatMap((consent) => {
    const { retentionUntil, retentionBasis } = deriveStatus(consent, now);
    if (retentionUntil === null || retentionBasis === null || retentionUntil >= now) return [];
    return [{ redecConsentId: consent.grant.redecConsentId, customerId: records.customer.customerId, retentionUntil, retentionBasis }];
  });
}

function pastFloor(consent: ConsentState, now: number): boolean {
  const { retentionUntil } = deriveStatus(consent, now);
  return retentionUntil !== null && retentionUntil < now;
}

/** The blobs a consent's facts name: supplied evidence held by the service and the rendered certificate. Never a resource held elsewhere. */
export function blobsOf(consent: ConsentState): string[] {
  const { evidence } = consent.grant;
  const held = evidence.kind !== 'electronic' && evidence.content.origin === 'held' ? [evidence.content.contentSha256] : [];
  const artifact = consent.artifact.origin !== 'external_reference' && consent.artifact.contentSha256 ? [consent.artifact.contentSha256] : [];
  return [...new Set([...held, ...artifact])];
}

/**
 * The fact that erases an `erasable` customer; null for any other verdict,
 * so that a hold placed or a consent recorded since the scan wins.
 */
export function decideCustomerErasure(records: CustomerRecords, dataKeyId: string | null, deletedBlobs: string[], now: number): CustomerDataErased | null {
  if (retentionVerdict(records, now) !== 'erasable') return null;
  const floors = consentsPastFloor(records, now);
  return {
    type: 'CustomerDataErased',
    data: {
      customerId: records.customer.customerId,
      dataKeyId,
      redecConsentIds: floors.map((f) => f.redecConsentId),
      retentionUntil: floors.length === 0 ? null : Math.max(...floors.map((f) => f.retentionUntil)),
      ...(records.suppression !== null ? { rightsRequestId: records.suppression.rightsRequestId } : {}),
      deletedBlobs,
      erasedAt: now,
    },
  };
}

/** The protected values a customer fact records: its userReference and identifiers. */
export function valuesRecordedBy(event: CustomerEvent): ProtectedValue[] {
  if (event.type === 'CustomerRegistered') return [event.data.userReference, ...event.data.identifiers.map((identifier) => identifier.value)];
  if (event.type === 'CustomerIdentifierLinked') return [event.data.identifier.value];
  return [];
}

/** The customer's values its consents record: a representative's RUT. */
export function valuesOfConsent(consent: ConsentState): ProtectedValue[] {
  return consent.grant.representation ? [consent.grant.representation.identifierRut] : [];
}

/** Whether a value was sealed under the tenant's key (before decision 0035) rather than under its customer's own. */
export function isSealedUnderTenantKey(value: ProtectedValue): boolean {
  return !protectedValueKeyId(value.ciphertext)?.startsWith(CUSTOMER_KEY_PREFIX);
}
