import { BankingCalendar } from '../calendar/banking-calendar';
import { localDateOf, localTimeOf } from '../calendar/local-time';
import { ConsentEvent } from '../consent/consent.events';
import { ConsentState, evolveConsent } from '../consent/consent.state';
import { effectiveExtensions, isExtended, revocationEffect } from '../consent/enablement';
import { RecordValues, renderFile } from './fixed-width';
import { RedecDispute, RightsRequestOutcome } from '../rights/rights-request.events';
import { ReportLayout } from './report-layout';

/** The instants a report covers, both included (epoch ms). */
export interface ReportPeriod {
  periodStart: number;
  periodEnd: number;
}

/** A fact of a consent with the service's clock when it was recorded. */
export interface RecordedConsentFact {
  event: ConsentEvent;
  recordedAt: number;
}

/** What RDC30 needs of one consent: its facts in stream order, and its identifiers decrypted for this rendering only. */
export interface ConsentReportFacts {
  facts: RecordedConsentFact[];
  subjectRut: string | null;
  executiveRut: string | null;
}

/** What RDC31 needs of one access confirmed `accessed`. */
export interface AccessReportFacts {
  redecAccessId: string;
  internalConsentCode: string;
  accessedAt: number;
  /** When the service recorded the confirmation. */
  recordedAt: number;
  mandataryRut: string | null;
}

/** The steps of a REDEC dispute RDC40 reports. */
export type DisputeEvent = 'filed' | 'analysis_started' | 'closed';
const DISPUTE_EVENT_ORDER: Readonly<Record<DisputeEvent, string>> = { filed: '1', analysis_started: '2', closed: '3' };

/** What RDC40 needs of one step of a REDEC dispute. */
export interface DisputeEventFacts {
  rightsRequestId: string;
  event: DisputeEvent;
  /** When it happened: the receipt, the start of the analysis, the resolution. */
  at: number;
  /** When the service recorded it. */
  recordedAt: number;
  /** The entry channel, as received. */
  channel: string;
  /** `pending` until the dispute is closed, then the answer's outcome. */
  answer: 'pending' | RightsRequestOutcome;
  dispute: RedecDispute;
}

export interface RenderedReport {
  content: Buffer;
  /** Detail lines, the header not counted. */
  records: number;
  /** The cover sheet's figures. */
  metadata: Record<string, number>;
}

/**
 * Whether a fact about `at` recorded at `recordedAt` belongs to the period:
 * the period holding the later of the two. A fact recorded by the end of the
 * period of its instant is reported there; one recorded after that period
 * ended (a deferred capture, a late confirmation) in the period it was
 * recorded in, the next file, since a file once produced is never rewritten.
 * Contiguous periods so report every fact exactly once.
 */
export function isReportedIn(at: number, recordedAt: number, { periodStart, periodEnd }: ReportPeriod): boolean {
  const reportedAt = Math.max(at, recordedAt);
  return reportedAt >= periodStart && reportedAt <= periodEnd;
}

/**
 * Until when the consent enables access as its facts stand: the instant an
 * effective revocation took effect; null (no end known) while an effective
 * credit extension is active; otherwise the later of the initial window's
 * end and the end of the last obligation it kept. Only facts move it, never
 * the clock.
 */
export function validityEnd(state: ConsentState): number | null {
  const effect = revocationEffect(state);
  if (effect?.effective) return effect.effectiveAt;
  if (isExtended(state)) return null;
  return Math.max(state.grant.initialAccessValidUntil, ...effectiveExtensions(state).map((e) => e.endedAt ?? -Infinity));
}

function consentAt(consent: ConsentReportFacts, at: number): ConsentState | null {
  return consent.facts.filter((f) => f.recordedAt <= at).reduce<ConsentState | null>((state, f) => evolveConsent(state, f.event, ''), null);
}

/** A consent RDC30 gives a line to, as of the period's end. */
interface Rdc30Entry<C extends ConsentReportFacts> {
  consent: C;
  state: ConsentState;
  isCapture: boolean;
}

/**
 * RDC30: one line per consent captured in the period, and one per consent
 * captured earlier whose end of validity changed in it (a revocation took
 * effect, an extension kept it, an annulment undid one): the correction
 * shows in the next file. Each line shows the consent as of the period's
 * end.
 */
function rdc30Entries<C extends ConsentReportFacts>(period: ReportPeriod, consents: readonly C[]): Array<Rdc30Entry<C>> {
  const entries: Array<Rdc30Entry<C>> = [];
  for (const consent of consents) {
    const state = consentAt(consent, period.periodEnd);
    if (!state) continue;
    const { grant } = state;
    const isCapture = isReportedIn(grant.grantedAt, grant.recordedAt, period);
    if (!isCapture) {
      const before = consentAt(consent, period.periodStart - 1);
      if (!before || Math.max(grant.grantedAt, grant.recordedAt) >= period.periodStart || validityEnd(before) === validityEnd(state)) continue;
    }
    entries.push({ consent, state, isCapture });
  }
  return entries;
}

/** The consents RDC30 of the period names: those whose identifiers must be decrypted to render it, and no others. */
export function consentsInRdc30<C extends ConsentReportFacts>(period: ReportPeriod, consents: readonly C[]): C[] {
  return rdc30Entries(period, consents).map((entry) => entry.consent);
}

/** The accesses RDC31 of the period names. */
export function accessesInRdc31<A extends AccessReportFacts>(period: ReportPeriod, accesses: readonly A[]): A[] {
  return accesses.filter((a) => isReportedIn(a.accessedAt, a.recordedAt, period));
}

/** RDC30 of the period, lines ordered by grant instant, then code. */
export function renderRdc30(layout: ReportLayout, institutionCode: string, period: ReportPeriod, consents: readonly ConsentReportFacts[]): RenderedReport {
  const entries = rdc30Entries(period, consents);
  const lines = entries.map(({ consent, state: { grant }, state }) => {
    const end = validityEnd(state);
    return {
      at: grant.grantedAt,
      values: {
        internalConsentCode: grant.internalConsentCode,
        consentDate: grant.grantedAt,
        consentTime: grant.grantedAt,
        endDate: end,
        endTime: end,
        subjectRut: consent.subjectRut,
        mediumCode: grant.mediumCode,
        finalityCode: grant.finalityCode,
        // One objective per line: the lowest of the consent's (decision 0033).
        objectiveCode: [...grant.objectiveCodes].sort()[0],
        executiveRut: consent.executiveRut,
      },
    };
  });
  const details = ordered(lines, 'internalConsentCode');
  const captured = entries.filter((e) => e.isCapture).length;
  return {
    content: renderFile(layout, headerOf(institutionCode, period), details),
    records: details.length,
    metadata: { totalRecords: details.length, captured, corrected: details.length - captured, withExecutive: details.filter((d) => d.executiveRut !== null).length },
  };
}

/**
 * RDC31: one line per access confirmed `accessed` in the period, with the
 * cover sheet's counts: by a mandatary, on banking days, and outside the
 * layout's business hours (local time, any day).
 */
export function renderRdc31(
  layout: ReportLayout,
  institutionCode: string,
  period: ReportPeriod,
  accesses: readonly AccessReportFacts[],
  calendar: Pick<BankingCalendar, 'isBankingDay'>,
): RenderedReport {
  const reported = accessesInRdc31(period, accesses);
  const lines = reported.map((a) => ({
    at: a.accessedAt,
    values: { internalConsentCode: a.internalConsentCode, accessDate: a.accessedAt, accessTime: a.accessedAt, mandataryRut: a.mandataryRut, redecAccessId: a.redecAccessId },
  }));
  const details = ordered(lines, 'internalConsentCode', 'redecAccessId');
  const hours = layout.businessHours;
  const outside = (at: number) => !!hours && (localTimeOf(at) < hours.from || localTimeOf(at) >= hours.to);
  return {
    content: renderFile(layout, headerOf(institutionCode, period), details),
    records: details.length,
    metadata: {
      totalRecords: details.length,
      byMandatary: reported.filter((a) => a.mandataryRut !== null).length,
      onBankingDays: reported.filter((a) => calendar.isBankingDay(localDateOf(a.accessedAt))).length,
      outsideBusinessHours: reported.filter((a) => outside(a.accessedAt)).length,
    },
  };
}

/**
 * RDC40: one line per step of a REDEC dispute in the period (filed,
 * analysis started, closed), with the dispute's classification, entry
 * channel, reason and operation, and the answer once closed. A period
 * without any is the header alone, the "no movements" file, and says so in
 * the cover sheet (`noMovements`).
 */
export function renderRdc40(layout: ReportLayout, institutionCode: string, period: ReportPeriod, events: readonly DisputeEventFacts[]): RenderedReport {
  const reported = events.filter((e) => isReportedIn(e.at, e.recordedAt, period));
  const lines = reported.map((e) => ({
    at: e.at,
    values: {
      requestId: e.rightsRequestId,
      eventDate: e.at,
      entryChannel: e.channel,
      answer: e.answer,
      event: e.event,
      classification: e.dispute.classification,
      reason: e.dispute.reasonCode,
      operationReference: e.dispute.operationReference,
      eventOrder: DISPUTE_EVENT_ORDER[e.event],
    },
  }));
  const details = ordered(lines, 'requestId', 'eventOrder');
  const count = (event: DisputeEvent) => reported.filter((e) => e.event === event).length;
  return {
    content: renderFile(layout, headerOf(institutionCode, period), details),
    records: details.length,
    metadata: { totalRecords: details.length, filed: count('filed'), analysisStarted: count('analysis_started'), closed: count('closed'), noMovements: details.length === 0 ? 1 : 0 },
  };
}

/** The header: the report date is the period's last local day, so the same period always renders the same bytes. */
function headerOf(institutionCode: string, period: ReportPeriod): RecordValues {
  return { institutionCode, reportDate: period.periodEnd };
}

function ordered(lines: Array<{ at: number; values: RecordValues }>, ...tieBreakers: string[]): RecordValues[] {
  const key = (line: { values: RecordValues }) => tieBreakers.map((name) => String(line.values[name])).join('\u0000');
  return [...lines].sort((a, b) => a.at - b.at || (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0)).map((line) => line.values);
}
