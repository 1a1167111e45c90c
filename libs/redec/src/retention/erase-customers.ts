import { BlobCorruptedError, BlobStore } from '@ledger/artifacts';
import { EventStore, readAllPages } from '@ledger/event-store';
import { CommandContext, Customer, CustomerEvent, CustomerKeyTable, Decision, evolveCustomer, runCommand, streams } from '@ledger/ledger';
import { ConsentEvent, GrantEvidence } from '../consent/consent.events';
import { ConsentState, evolveConsent } from '../consent/consent.state';
import { decideReportContentErasure } from '../reports/report.decider';
import { contentBlobOf } from '../reports/report-content';
import { Report, ReportEvent, evolveReport } from '../reports/report.events';
import { RightsRequestReceived, RightsRequestResolved } from '../rights/rights-request.events';
import { redecStreams } from '../streams';
import {
  ConsentPastFloor,
  CustomerRecords,
  blobsOf,
  consentsPastFloor,
  decideCustomerErasure,
  isSealedUnderTenantKey,
  retentionVerdict,
  valuesOfConsent,
  valuesRecordedBy,
} from './retention';

export interface RetentionDependencies {
  store: EventStore;
  keyTable: Pick<CustomerKeyTable, 'find' | 'destroy' | 'findReportKey' | 'destroyReportKey'>;
  blobs: Pick<BlobStore, 'get' | 'put' | 'delete'>;
}

/** `ledger retention status`. */
export interface RetentionStatus {
  tenantId: string;
  asOf: number;
  /** Consents past their floor, of customers not on legal hold and not erased yet. */
  consentsPastFloor: ConsentPastFloor[];
  /** Customers every consent of which is past its floor, none on legal hold: what `retention erase` would erase now. */
  erasableCustomers: string[];
  /** Customers that would be erasable but for a legal hold in force. */
  onLegalHold: Array<{ customerId: string; legalHoldIds: string[] }>;
  erasedCustomers: number;
  /**
   * Customers, erased or not, with values recorded before decision 0035
   * under the tenant's key: erasure cannot make those unreadable to a holder
   * of the master key (docs/data-lifecycle.md, "What is not erased").
   */
  sealedUnderTenantKey: string[];
}

/** `ledger retention erase`: `{ erasedCustomers, skippedOnHold }` (README.md, "Operator CLI"), by customer id. */
export interface ErasureResult {
  tenantId: string;
  asOf: number;
  dryRun: boolean;
  erasedCustomers: string[];
  skippedOnHold: string[];
  /** Reports whose stored content named an erased customer and was erased with it (decision 0040). */
  erasedReports: string[];
  /** Of `erasedCustomers`, those whose values recorded before decision 0035 stay under the tenant's key, readable with the master key. */
  sealedUnderTenantKey: string[];
}

/** What retention reads of a tenant: each customer with its consents, and the reports whose contents may name them. */
export interface TenantRecords {
  customers: CustomerRecords[];
  reports: Report[];
  /** The hashes of the evidence general consents hold: stored at the tenant's address, under no customer's key. */
  generalConsentEvidence: ReadonlySet<string>;
}

const PAGE = 1_000;

/**
 * Every customer of the tenant with its consents, and every report, folded
 * from the whole store in one pass. Erasure is a batch an operator runs (or
 * schedules) rarely, so a pass over the ledger is its honest cost; no read
 * model can be trusted to name every consent of a customer whose data is
 * destroyed.
 */
export async function readTenantRecords(store: EventStore, tenantId: string, progress: (events: number) => void = () => undefined): Promise<TenantRecords> {
  const customerPrefix = streams.customer(tenantId, '');
  const consentPrefix = redecStreams.consent(tenantId, '');
  const reportPrefix = redecStreams.report(tenantId, '');
  const customers = new Map<string, Customer | null>();
  const consents = new Map<string, ConsentState | null>();
  const reports = new Map<string, Report | null>();
  const generalConsents = new Map<string, number>();
  const generalConsentEvidence = new Set<string>();
  const underTenantKey = new Set<string>();
  const suppressionRequests = new Map<string, string>();
  const suppressions = new Map<string, { rightsRequestId: string; generalConsentsSince: number }>();
  let read = 0;
  for await (const page of readAllPages(store, { pageSize: PAGE })) {
    for (const event of page) {
      if (event.streamId.startsWith(customerPrefix)) {
        const fact = event as unknown as CustomerEvent;
        customers.set(event.streamId, evolveCustomer(customers.get(event.streamId) ?? null, fact));
        if (valuesRecordedBy(fact).some(isSealedUnderTenantKey)) underTenantKey.add(fact.data.customerId);
      } else if (event.streamId.startsWith(consentPrefix)) {
        consents.set(event.streamId, evolveConsent(consents.get(event.streamId) ?? null, event as unknown as ConsentEvent, tenantId));
      } else if (event.streamId.startsWith(reportPrefix)) {
        reports.set(event.streamId, evolveReport(reports.get(event.streamId) ?? null, event as unknown as ReportEvent));
      } else if (event.type === 'GeneralConsentGranted' && event.metadata.tenantId === tenantId) {
        const { customerId, evidence } = event.data as { customerId: string; evidence: GrantEvidence };
        generalConsents.set(customerId, (generalConsents.get(customerId) ?? 0) + 1);
        const suppression = suppressions.get(customerId);
        if (suppression) suppression.generalConsentsSince += 1;
        if (evidence.kind !== 'electronic' && evidence.content.origin === 'held') generalConsentEvidence.add(evidence.content.contentSha256);
      } else if (event.type === 'RightsRequestReceived' && event.metadata.tenantId === tenantId) {
        const { rightsRequestId, kind, customerId } = (event as unknown as RightsRequestReceived).data;
        if (kind === 'suppression') suppressionRequests.set(rightsRequestId, customerId);
      } else if (event.type === 'RightsRequestResolved' && event.metadata.tenantId === tenantId) {
        const { rightsRequestId, outcome } = (event as unknown as RightsRequestResolved).data;
        const customerId = suppressionRequests.get(rightsRequestId);
        if (customerId !== undefined && outcome === 'approved') suppressions.set(customerId, { rightsRequestId, generalConsentsSince: 0 });
      }
    }
    read += page.length;
    progress(read);
  }
  const byCustomer = new Map<string, ConsentState[]>();
  for (const consent of consents.values()) {
    if (!consent) continue;
    byCustomer.set(consent.grant.customerId, [...(byCustomer.get(consent.grant.customerId) ?? []), consent]);
    if (valuesOfConsent(consent).some(isSealedUnderTenantKey)) underTenantKey.add(consent.grant.customerId);
  }
  return {
    customers: [...customers.values()]
      .filter((customer): customer is Customer => customer !== null)
      .map((customer) => ({
        customer,
        consents: byCustomer.get(customer.customerId) ?? [],
        generalConsents: generalConsents.get(customer.customerId) ?? 0,
        suppression: suppressions.get(customer.customerId) ?? null,
        sealedUnderTenantKey: underTenantKey.has(customer.customerId),
      })),
    reports: [...reports.values()].filter((report): report is Report => report !== null),
    generalConsentEvidence,
  };
}

export async function retentionStatus(store: EventStore, tenantId: string, now: number, progress?: (events: number) => void): Promise<RetentionStatus> {
  const { customers: records } = await readTenantRecords(store, tenantId, progress);
  const verdicts = records.map((r) => ({ records: r, verdict: retentionVerdict(r, now) }));
  return {
    tenantId,
    asOf: now,
    consentsPastFloor: verdicts.filter((v) => v.verdict !== 'erased' && v.verdict !== 'on_legal_hold').flatMap((v) => consentsPastFloor(v.records, now)),
    erasableCustomers: verdicts.filter((v) => v.verdict === 'erasable').map((v) => v.records.customer.customerId),
    onLegalHold: verdicts
      .filter((v) => v.verdict === 'on_legal_hold')
      .map(({ records: { customer } }) => ({ customerId: customer.customerId, legalHoldIds: customer.legalHolds.filter((h) => h.releasedAt === null).map((h) => h.legalHoldId) })),
    erasedCustomers: verdicts.filter((v) => v.verdict === 'erased').length,
    sealedUnderTenantKey: records.filter((r) => r.sealedUnderTenantKey).map((r) => r.customer.customerId),
  };
}

/**
 * Erases every erasable customer of the tenant (decision 0035). Per
 * customer, the CustomerDataErased fact is appended first, through the one
 * command path: the verdict is taken again on the customer's stream and its
 * consents' streams, and recorded only while none of them moved (a hold
 * placed, or a consent changed, meanwhile makes the customer be judged
 * again); then its evidence blobs are deleted
 * (its own copies, decision 0048) and its data key and blind index entries
 * destroyed. A run interrupted after the fact is completed by the next run,
 * which finishes every erased customer whose key still exists.
 */
export async function eraseCustomers(
  deps: RetentionDependencies,
  tenantId: string,
  options: { dryRun: boolean; progress?: (line: string) => void },
  context: CommandContext,
): Promise<ErasureResult> {
  const now = context.now;
  const progress = options.progress ?? (() => undefined);
  const { customers: records, reports, generalConsentEvidence } = await readTenantRecords(deps.store, tenantId, (events) => progress(`retention: ${events} events read`));
  const verdicts = new Map(records.map((r) => [r.customer.customerId, retentionVerdict(r, now)]));
  const erasedBefore = records.filter((r) => verdicts.get(r.customer.customerId) === 'erased').map((r) => r.customer.customerId);
  const copies: TenantCopies = { namedBy: customersNaming(records), erased: new Set(erasedBefore), generalConsentEvidence };
  const result: ErasureResult = { tenantId, asOf: now, dryRun: options.dryRun, erasedCustomers: [], skippedOnHold: [], erasedReports: [], sealedUnderTenantKey: [] };
  const tenantContext = { ...context, tenantId };

  for (const record of records) {
    const { customerId } = record.customer;
    const verdict = verdicts.get(customerId);
    if (verdict === 'on_legal_hold') result.skippedOnHold.push(customerId);
    if (verdict === 'erased' && !options.dryRun) await completeErasure(deps, tenantId, record, copies, now);
    if (verdict !== 'erasable') continue;
    if (options.dryRun) {
      result.erasedCustomers.push(customerId);
      if (record.sealedUnderTenantKey) result.sealedUnderTenantKey.push(customerId);
      continue;
    }
    const outcome = await eraseCustomer(deps, record, copies, tenantContext);
    if (outcome === 'erased') result.erasedCustomers.push(customerId);
    if (outcome === 'erased' && record.sealedUnderTenantKey) result.sealedUnderTenantKey.push(customerId);
    if (outcome === 'on_legal_hold') result.skippedOnHold.push(customerId);
    progress(`retention: customer ${customerId} ${outcome}`);
  }
  // Every erased customer, not only this run's: a report rendered while an erasure ran, or a run interrupted, is caught by the next.
  const erased = new Set([...erasedBefore, ...result.erasedCustomers]);
  result.erasedReports = options.dryRun
    ? reports.filter((report) => decideReportContentErasure(report, erased, now)).map((report) => report.request.reportId)
    : await eraseReportContents(deps, reports, erased, tenantContext);
  return result;
}

/**
 * Erases the stored contents that name an erased customer (decision 0040):
 * per report, ReportContentErased first, through the one command path;
 * then the blobs, unless another report still keeps the same bytes (only
 * files stored before decision 0045 share a blob); then the reports' keys,
 * with which the hash of each file goes (decision 0045).
 */
async function eraseReportContents(deps: RetentionDependencies, reports: Report[], erasedCustomers: ReadonlySet<string>, context: CommandContext & { tenantId: string }): Promise<string[]> {
  const { tenantId, now } = context;
  const due = reports.filter((report) => decideReportContentErasure(report, erasedCustomers, now));
  const kept = new Set(reports.filter((report) => report.rendered && !report.contentErased && !due.includes(report)).map((report) => contentBlobOf(report.rendered!)));
  const erased: string[] = [];
  // With the contents an earlier run recorded erased: deleting again changes nothing unless that run stopped before its blobs or keys.
  const deleted = reports.filter((report) => report.contentErased).map((report) => report.rendered!);
  for (const { request } of due) {
    const stream = redecStreams.report(tenantId, request.reportId);
    const { result: rendered } = await runCommand(deps.store, context, async (reads): Promise<Decision<Report['rendered']>> => {
      const report = await reads.fold(stream, evolveReport);
      const event = report && decideReportContentErasure(report, erasedCustomers, now);
      // No longer due: another run erased it meanwhile.
      if (!event) return { answer: null, position: null };
      return { record: { streamId: stream, facts: [event] }, answer: report.rendered };
    });
    if (!rendered) continue;
    erased.push(request.reportId);
    deleted.push(rendered);
  }
  for (const blob of new Set(deleted.map(contentBlobOf))) if (!kept.has(blob)) await deps.blobs.delete(tenantId, blob);
  for (const { reportId } of deleted) {
    // A read first: runs repeat this for every content erased before, and a destroy is a durable write.
    if ((await deps.keyTable.findReportKey(tenantId, reportId))?.wrappedKey) await deps.keyTable.destroyReportKey(tenantId, reportId, now);
  }
  return erased;
}

async function eraseCustomer(
  deps: RetentionDependencies,
  records: CustomerRecords,
  copies: TenantCopies,
  context: CommandContext & { tenantId: string },
): Promise<'erased' | 'on_legal_hold' | 'retained'> {
  const { tenantId, now } = context;
  const { customerId } = records.customer;
  const stream = streams.customer(tenantId, customerId);
  const evolveConsentOfTenant = (state: ConsentState | null, event: ConsentEvent) => evolveConsent(state, event, tenantId);
  const { result } = await runCommand(deps.store, context, async (reads): Promise<Decision<CustomerRecords | 'on_legal_hold' | 'retained'>> => {
    const [customer, consents] = await Promise.all([
      reads.fold(stream, evolveCustomer),
      Promise.all(records.consents.map((consent) => reads.fold(redecStreams.consent(tenantId, consent.grant.redecConsentId), evolveConsentOfTenant))),
    ]);
    const current = { ...records, customer: customer!, consents: consents.filter((consent): consent is ConsentState => consent !== null) };
    const key = await deps.keyTable.find(tenantId, customerId);
    const event = decideCustomerErasure(current, key?.dataKeyId ?? null, blobsOfCustomer(current), now);
    if (!event) return { answer: retentionVerdict(current, now) === 'on_legal_hold' ? 'on_legal_hold' : 'retained', position: null };
    return { record: { streamId: stream, facts: [event] }, answer: { ...current, customer: evolveCustomer(current.customer, event)! } };
  });
  if (typeof result === 'string') return result;
  await completeErasure(deps, tenantId, result, copies, now);
  copies.erased.add(customerId);
  return 'erased';
}

/** Deletes the customer's blobs and destroys its key; repeating it changes nothing. */
async function completeErasure(deps: RetentionDependencies, tenantId: string, records: CustomerRecords, copies: TenantCopies, now: number): Promise<void> {
  const { customer } = records;
  const key = await deps.keyTable.find(tenantId, customer.customerId);
  if (key && key.wrappedKey === null) return;
  for (const blob of blobsOfCustomer(records)) {
    await deps.blobs.delete(tenantId, blob, customer.customerId);
    await releaseTenantCopy(deps, tenantId, blob, customer.customerId, copies);
  }
  await deps.keyTable.destroy(tenantId, customer.customerId, customer.erasedAt ?? now);
}

/** Who else may need a blob an erased customer named: the customers naming it, the erased ones, and the general consents' evidence. */
interface TenantCopies {
  namedBy: ReadonlyMap<string, ReadonlySet<string>>;
  /** Erased before this run or by it: they need nothing any more. */
  erased: Set<string>;
  generalConsentEvidence: ReadonlySet<string>;
}

/** The blobs a customer's consents name (CustomerDataErased's `deletedBlobs`): each is the customer's own since decision 0048. */
function blobsOfCustomer(records: CustomerRecords): string[] {
  return [...new Set(records.consents.flatMap(blobsOf))];
}

function customersNaming(records: CustomerRecords[]): Map<string, Set<string>> {
  const namedBy = new Map<string, Set<string>>();
  for (const { customer, consents } of records) {
    for (const blob of consents.flatMap(blobsOf)) namedBy.set(blob, (namedBy.get(blob) ?? new Set<string>()).add(customer.customerId));
  }
  return namedBy;
}

/**
 * Before decision 0048 a customer's blob was kept at the tenant's address:
 * one blob for every customer that supplied the same bytes, sealed under the
 * key of the first. Before the erased customer's key goes, every other
 * customer still naming the bytes gets a copy of its own, under its own key,
 * so no evidence stored before is lost with a key that was not its owner's;
 * then the tenant's copy is deleted, unless a general consent (which names
 * no customer) holds the same bytes there. Nothing is at the tenant's
 * address for blobs stored since: the get finds nothing and nothing is
 * copied.
 */
async function releaseTenantCopy(deps: RetentionDependencies, tenantId: string, blob: string, erasedCustomerId: string, copies: TenantCopies): Promise<void> {
  const others = [...(copies.namedBy.get(blob) ?? [])].filter((customerId) => customerId !== erasedCustomerId && !copies.erased.has(customerId));
  const bytes = others.length > 0 ? await tenantCopy(deps, tenantId, blob) : null;
  if (bytes) for (const customerId of others) await deps.blobs.put(tenantId, bytes, customerId);
  if (!copies.generalConsentEvidence.has(blob)) await deps.blobs.delete(tenantId, blob);
}

/** The blob at the tenant's address; null when there is none, or when it no longer opens (an erasure before decision 0048 destroyed its key): nothing is left to copy. */
async function tenantCopy(deps: RetentionDependencies, tenantId: string, blob: string): Promise<Buffer | null> {
  try {
    return await deps.blobs.get(tenantId, blob);
  } catch (error) {
    if (error instanceof BlobCorruptedError) return null;
    throw error;
  }
}
