import { randomUUID } from 'node:crypto';
import { EventStore, RecordedEvent, readAllPages } from '@ledger/event-store';
import { CommandContext, Decision, evolveCustomer, evolveTenant, loadAggregate, listTenants, runCommand, streams, toNewEvent, type Customer, type CustomerEvent } from '@ledger/ledger';
import { DomainError, ReportKeySource } from '@ledger/platform';
import { BankingCalendar } from '../calendar/banking-calendar';
import { AccessConfirmed, AccessDecided } from '../access/access.events';
import { ConsentEvent, ConsentGranted } from '../consent/consent.events';
import { derivedUuid } from '../derived-id';
import { redecStreams } from '../streams';
import { ReportFieldError } from './fixed-width';
import { decideRequestReport } from './report.decider';
import { Report, ReportEvent, ReportFailed, ReportRendered, ReportRequested, evolveReport } from './report.events';
import { REPORT_KINDS, ReportKind, ReportLayout, ReportLayouts } from './report-layout';
import { ReportSchedule } from './report-schedules';
import { AccessReportFacts, ConsentReportFacts, DisputeEventFacts, RenderedReport, accessesInRdc31, consentsInRdc30, renderRdc30, renderRdc31, renderRdc40 } from './report-records';
import { RightsRequestEvent } from '../rights/rights-request.events';
import { contentSha256Of, protectReportContent } from './report-content';

export interface ReportDependencies {
  store: EventStore;
  layouts: ReportLayouts;
  calendar: BankingCalendar;
  /** Identifiers are decrypted only here, while a file is rendered, and only those the file names. */
  identifiers: { decrypt(tenantId: string, ciphertext: string): Promise<string> };
  /** Where the file's bytes are kept, sealed under the report's key (report-content.ts) and again under the tenant's by the blob store. */
  blobs: { put(tenantId: string, bytes: Buffer): Promise<{ contentSha256: string; size: number }> };
  /** The report's own key, created here: what seals the file and its hash, destroyed with them (decision 0045). */
  reportKeys: Pick<ReportKeySource, 'keyFor'>;
}

type Context = CommandContext & { tenantId: string };

/**
 * Records a report request through the one command path, decided on the
 * tenant's settings and recorded only while they are as read; the rendering
 * follows in the background (reports queue). A given `reportId` is requested
 * at most once: a request of one already recorded is answered with the
 * report as recorded and a null position.
 */
export async function requestReport(
  deps: Pick<ReportDependencies, 'store' | 'layouts'>,
  period: { kind: ReportKind; periodStart: number; periodEnd: number },
  context: Context,
  reportId: string = randomUUID(),
): Promise<{ report: Report; position: number | null }> {
  const { store } = deps;
  const stream = redecStreams.report(context.tenantId, reportId);
  const { result, position } = await runCommand(store, context, async (reads): Promise<Decision<Report>> => {
    // Independent reads: a store over the network answers them in one round trip's time.
    const [tenant, requested, asOfPosition] = await Promise.all([reads.fold(streams.tenant(context.tenantId), evolveTenant), reads.fold(stream, evolveReport), store.headPosition()]);
    if (requested) return { answer: requested, position: null };
    const event = decideRequestReport({
      ...period,
      reportId,
      institutionCode: tenant?.settings.institutionCode ?? null,
      layouts: deps.layouts,
      asOfPosition,
      now: context.now,
    });
    return { record: { streamId: stream, facts: [event] }, answer: evolveReport(null, event)! };
  });
  return { report: result, position };
}

/**
 * The run of `schedule` due at `now` (its runDue): its files of the period
 * just ended for every tenant that had opted in by the run's schedule. Each
 * report's id derives from the tenant, the kind and the period, so running
 * again (the cron and the catch-up at start, two instances, a retried job)
 * requests nothing twice: a period's files are made once.
 */
export async function runScheduledReports(
  deps: Pick<ReportDependencies, 'store' | 'layouts'>,
  schedule: ReportSchedule,
  now: number,
  log: (message: string) => void,
): Promise<{ scheduledAt: number; requested: number }> {
  const { scheduledAt, period } = schedule.runDue(now);
  let requested = 0;
  for (const tenant of await listTenants(deps.store)) {
    const since = schedule.optedInSince(tenant);
    if (since === null || since > scheduledAt) continue;
    for (const kind of schedule.kinds) {
      // The weekly files keep the ids they were made under before other schedules existed.
      const reportId = derivedUuid(schedule.name === 'weekly-reports' ? 'weekly-report' : schedule.name, tenant.tenantId, kind, String(period.periodStart));
      const context = { tenantId: tenant.tenantId, actor: `scheduler:${schedule.name}`, correlationId: randomUUID(), now };
      try {
        // A report of the period requested before (another instance, a repeated run) is answered with a null position.
        if ((await requestReport(deps, { kind, ...period }, context, reportId)).position !== null) requested += 1;
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        // One tenant's refusal (its settings changed meanwhile) must not keep the others' files from being made.
        log(`${schedule.name}: ${kind} of tenant ${tenant.tenantId} not requested: ${error.code}`);
      }
    }
  }
  return { scheduledAt, requested };
}

export async function readReport(store: EventStore, tenantId: string, reportId: string): Promise<Report | null> {
  return (await loadAggregate(store, redecStreams.report(tenantId, reportId), evolveReport)).state;
}

/**
 * The file's SHA-256 as the report shows it: null until it is rendered, and
 * from the erasure of its content on (decision 0045), for a file recorded
 * before that decision too, though its fact keeps the hash in clear.
 */
export async function reportContentSha256(reportKeys: Pick<ReportKeySource, 'keyOf'>, tenantId: string, report: Report): Promise<string | null> {
  const { rendered } = report;
  if (!rendered || report.contentErased) return null;
  return contentSha256Of(rendered, rendered.contentSha256 === undefined ? await reportKeys.keyOf(tenantId, rendered.reportId) : null);
}

/**
 * Renders a pending report, stores its bytes and records `ReportRendered`;
 * a report that cannot be rendered from its facts under its layout is
 * recorded `ReportFailed`. Safe to repeat (jobs run at least once): the same
 * request renders the same bytes under the same report key, and the
 * outcome's id derives from the report, so a second append is a retry (a
 * crash between storing and recording leaves a sealed blob no fact names,
 * unreadable once the key goes).
 * Any other error (the store, the blob store) is thrown, for the job to retry.
 */
export async function completeReport(deps: ReportDependencies, tenantId: string, reportId: string, now: () => number): Promise<Report | null> {
  const stream = redecStreams.report(tenantId, reportId);
  const recorded = await deps.store.readStream(stream);
  const report = recorded.reduce<Report | null>((state, e) => evolveReport(state, e as unknown as ReportEvent), null);
  if (!report || report.status !== 'pending') return report;
  let outcome: ReportRendered | ReportFailed;
  try {
    const rendered = await renderReport(deps, tenantId, report.request);
    const { sealed, protectedContentSha256 } = await protectReportContent(await deps.reportKeys.keyFor(tenantId, reportId), reportId, rendered.content);
    const { contentSha256: contentBlob } = await deps.blobs.put(tenantId, sealed);
    const { kind, periodStart, periodEnd, layoutVersion } = report.request;
    const described = { reportId, kind, periodStart, periodEnd, layoutVersion };
    const { records, metadata, customerIds } = rendered;
    const size = rendered.content.length;
    outcome = { type: 'ReportRendered', data: { ...described, protectedContentSha256, contentBlob, size, records, metadata, customerIds, renderedAt: now() } };
  } catch (error) {
    if (!(error instanceof ReportFieldError || error instanceof DomainError)) throw error;
    outcome = { type: 'ReportFailed', data: { reportId, reason: error instanceof DomainError ? error.detail : error.message, failedAt: now() } };
  }
  const requested = recorded[0];
  const context = { tenantId, actor: 'worker:regulatory-reports', correlationId: requested.metadata.correlationId, causationId: requested.id, now: now() };
  await deps.store.append(stream, [toNewEvent(outcome, context, derivedUuid('report-outcome', requested.id))], 'any');
  return evolveReport(report, outcome);
}

/** The file a request names, from the tenant's facts up to its position, and the customers whose RUT it names. */
async function renderReport(
  deps: Pick<ReportDependencies, 'store' | 'layouts' | 'calendar' | 'identifiers'>,
  tenantId: string,
  request: ReportRequested['data'],
): Promise<RenderedReport & { customerIds: string[] }> {
  const layout = layoutOf(deps.layouts, request);
  const { consents, accesses, disputeEvents } = await readReportFacts(deps.store, tenantId, request.asOfPosition);
  // RDC40 names disputes by the request's id and the bank's references, never a data subject.
  if (request.kind === 'rdc40') return { ...renderRdc40(layout, request.institutionCode, request, disputeEvents), customerIds: [] };
  const decrypt = (ciphertext: string) => deps.identifiers.decrypt(tenantId, ciphertext);
  if (request.kind === 'rdc30') {
    const subjectRuts = new Map<string, Promise<string | null>>();
    const named = await Promise.all(
      consentsInRdc30(request, [...consents.values()]).map(async (consent) => {
        const grant = consent.facts[0].event.data as ConsentGranted['data'];
        if (!subjectRuts.has(grant.customerId)) subjectRuts.set(grant.customerId, subjectRutOf(deps.store, tenantId, grant.customerId, decrypt));
        return {
          ...consent,
          customerId: grant.customerId,
          subjectRut: await subjectRuts.get(grant.customerId)!,
          executiveRut: grant.executive ? await decrypt(grant.executive.identifierRut.ciphertext) : null,
        };
      }),
    );
    const customerIds = [...new Set(named.filter((consent) => consent.subjectRut !== null).map((consent) => consent.customerId))].sort();
    return { ...renderRdc30(layout, request.institutionCode, request, named), customerIds };
  }
  const named = await Promise.all(
    accessesInRdc31(request, accesses).map(async (access) => ({
      ...access,
      mandataryRut: access.mandataryCiphertext === null ? null : await decrypt(access.mandataryCiphertext),
    })),
  );
  // RDC31 names mandataries, third parties whose RUTs are the tenant's, never a data subject.
  return { ...renderRdc31(layout, request.institutionCode, request, named, deps.calendar), customerIds: [] };
}

/** The layout a report was asked under; a deployment that no longer loads that version cannot render it the same way. */
function layoutOf(layouts: ReportLayouts, request: ReportRequested['data']): ReportLayout {
  const layout = layouts[request.kind];
  if (layout.version !== request.layoutVersion) {
    throw new DomainError('conflict', 'report_layout_unavailable', `The report was asked under layout ${request.layoutVersion}; this deployment loads ${layout.version}.`);
  }
  return layout;
}

const PAGE = 1_000;

/**
 * Every consent and confirmed access of the tenant, from its facts up to
 * `asOfPosition`, read in store order. A report reads the tenant's whole
 * REDEC history once (decision 0034): the rules of what belongs in a file
 * (a late recording, a correction) need each consent's facts before the
 * period too.
 */
async function readReportFacts(store: EventStore, tenantId: string, asOfPosition: number) {
  const consentPrefix = redecStreams.consent(tenantId, '');
  const accessPrefix = redecStreams.access(tenantId, '');
  const consents = new Map<string, ConsentReportFacts>();
  const decisions = new Map<string, AccessDecided['data']>();
  const accesses: Array<AccessReportFacts & { mandataryCiphertext: string | null }> = [];
  const rightsRequestPrefix = redecStreams.rightsRequest(tenantId, '');
  const disputes = new Map<string, Pick<DisputeEventFacts, 'channel' | 'dispute'>>();
  const disputeEvents: DisputeEventFacts[] = [];
  await forEachFact(store, asOfPosition, (event) => {
    if (event.streamId.startsWith(rightsRequestPrefix)) addDisputeEvent(disputes, disputeEvents, event);
    else if (event.streamId.startsWith(consentPrefix)) addConsentFact(consents, event);
    else if (event.streamId.startsWith(accessPrefix)) {
      if (event.type === 'AccessDecided') decisions.set((event.data as AccessDecided['data']).redecAccessId, event.data as AccessDecided['data']);
      else if (event.type === 'AccessConfirmed') {
        const { redecAccessId, redecConsentId, outcome } = event.data as AccessConfirmed['data'];
        const decision = decisions.get(redecAccessId);
        const grant = consents.get(redecConsentId)?.facts[0].event.data as ConsentGranted['data'] | undefined;
        if (outcome.kind !== 'accessed' || !decision || !grant) return;
        accesses.push({
          redecAccessId,
          internalConsentCode: grant.internalConsentCode,
          accessedAt: outcome.accessedAt,
          recordedAt: event.metadata.recordedAt,
          mandataryRut: null,
          mandataryCiphertext: decision.request.mandatary?.identifierRut.ciphertext ?? null,
        });
      }
    }
  });
  return { consents, accesses, disputeEvents };
}

/** A step of a REDEC dispute RDC40 reports: its receipt, the start of its analysis, its resolution. */
function addDisputeEvent(disputes: Map<string, Pick<DisputeEventFacts, 'channel' | 'dispute'>>, events: DisputeEventFacts[], event: RecordedEvent): void {
  const fact = event as unknown as RightsRequestEvent;
  const { recordedAt } = event.metadata;
  if (fact.type === 'RightsRequestReceived') {
    const { rightsRequestId, redec, channel, receivedAt } = fact.data;
    if (!redec) return;
    disputes.set(rightsRequestId, { channel, dispute: redec });
    events.push({ rightsRequestId, event: 'filed', at: receivedAt, recordedAt, channel, answer: 'pending', dispute: redec });
    return;
  }
  const dispute = disputes.get(fact.data.rightsRequestId);
  if (!dispute) return;
  if (fact.type === 'RightsRequestAnalysisStarted') events.push({ rightsRequestId: fact.data.rightsRequestId, event: 'analysis_started', at: fact.data.startedAt, recordedAt, answer: 'pending', ...dispute });
  if (fact.type === 'RightsRequestResolved') events.push({ rightsRequestId: fact.data.rightsRequestId, event: 'closed', at: fact.data.resolvedAt, recordedAt, answer: fact.data.outcome, ...dispute });
}

/** Every fact of the store up to `upTo`, in store order, read a page at a time. */
async function forEachFact(store: EventStore, upTo: number, visit: (event: RecordedEvent) => void): Promise<void> {
  for await (const page of readAllPages(store, { pageSize: PAGE, upTo })) page.forEach(visit);
}

function addConsentFact(consents: Map<string, ConsentReportFacts>, event: RecordedEvent): void {
  const fact = { event: { type: event.type, data: event.data } as ConsentEvent, recordedAt: event.metadata.recordedAt };
  const redecConsentId = (event.data as { redecConsentId: string }).redecConsentId;
  const consent = consents.get(redecConsentId);
  if (consent) consent.facts.push(fact);
  else if (fact.event.type === 'ConsentGranted') consents.set(redecConsentId, { facts: [fact], subjectRut: null, executiveRut: null });
}

/**
 * The data subject's RUT: the customer's identifier of type `rut`, whatever
 * its system; null when the customer has none, or when its data was erased
 * after the retention floor (decision 0035): a file rendered after that shows
 * no RUT for the consent rather than fail.
 */
async function subjectRutOf(store: EventStore, tenantId: string, customerId: string, decrypt: (ciphertext: string) => Promise<string>): Promise<string | null> {
  const { state } = await loadAggregate<Customer, CustomerEvent>(store, streams.customer(tenantId, customerId), evolveCustomer);
  if (!state || state.erasedAt !== null) return null;
  const rut = state.identifiers.find((identifier) => identifier.type === 'rut');
  return rut ? decrypt(rut.value.ciphertext) : null;
}
