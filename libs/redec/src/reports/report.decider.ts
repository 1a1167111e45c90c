import { conflict, fieldRefused } from '@ledger/platform';
import { Report, ReportContentErased, ReportRequested } from './report.events';
import { ReportKind, ReportLayouts } from './report-layout';

/** The longest period one report covers: a quarter. A longer one is several files, and reading it is bounded work (decision 0026). */
export const MAX_REPORT_PERIOD_MS = 93 * 86_400_000;

export interface RequestReportInput {
  reportId: string;
  kind: ReportKind;
  periodStart: number;
  periodEnd: number;
  institutionCode: string | null;
  layouts: ReportLayouts;
  asOfPosition: number;
  now: number;
}

/**
 * A report covers a period that has ended, so that its facts are all
 * recorded and a second rendering of the same period gives the same bytes;
 * it needs the tenant's institution code for its header.
 */
export function decideRequestReport(input: RequestReportInput): ReportRequested {
  const { periodStart, periodEnd, now } = input;
  if (periodEnd < periodStart) throw fieldRefused('periodEnd', 'before_period_start', 'periodEnd is before periodStart.');
  if (periodEnd - periodStart > MAX_REPORT_PERIOD_MS) throw fieldRefused('periodEnd', 'period_too_long', 'A report covers at most 93 days.');
  if (periodEnd >= now) throw fieldRefused('periodEnd', 'period_not_ended', 'The period has not ended yet: a file of it could still change.');
  if (input.institutionCode === null) {
    throw conflict('institution_code_not_configured', 'Set the CMF institution code first (PUT /v1/tenant-settings, or ledger tenant configure).');
  }
  return {
    type: 'ReportRequested',
    data: {
      reportId: input.reportId,
      kind: input.kind,
      periodStart,
      periodEnd,
      layoutVersion: input.layouts[input.kind].version,
      institutionCode: input.institutionCode,
      asOfPosition: input.asOfPosition,
      requestedAt: now,
    },
  };
}

/**
 * A stored file that names an erased customer is erased with it (decision
 * 0040): null when the report has no stored content, or names none of
 * `erasedCustomers`. A file rendered before that decision does not say whom
 * it names; an RDC30 of those is taken to name every customer, so its
 * content goes with the tenant's first erasure.
 */
export function decideReportContentErasure(report: Report, erasedCustomers: ReadonlySet<string>, now: number): ReportContentErased | null {
  const { rendered } = report;
  if (!rendered || report.contentErased || erasedCustomers.size === 0) return null;
  const named = rendered.customerIds;
  const customerIds = named === undefined ? [] : named.filter((customerId) => erasedCustomers.has(customerId));
  if (named === undefined ? rendered.kind !== 'rdc30' : customerIds.length === 0) return null;
  return { type: 'ReportContentErased', data: { reportId: rendered.reportId, customerIds, erasedAt: now } };
}
