import { refusalOf } from '@ledger/platform/testing';
import { decideRequestReport, RequestReportInput } from './report.decider';
import { SHIPPED_REPORT_LAYOUTS } from './report-layout';

const DAY = 86_400_000;
const now = Date.UTC(2026, 10, 21, 4, 0, 0);
const given = (overrides: Partial<RequestReportInput> = {}): RequestReportInput => ({
  reportId: 'rep-1',
  kind: 'rdc30',
  periodStart: now - 8 * DAY,
  periodEnd: now - DAY - 1,
  institutionCode: '0000000001',
  layouts: SHIPPED_REPORT_LAYOUTS,
  asOfPosition: 42,
  now,
  ...overrides,
});

describe('requesting a report', () => {
  it('records the period, the layout version, the institution code and the position its facts are read up to', () => {
    expect(decideRequestReport(given()).data).toEqual({
      reportId: 'rep-1',
      kind: 'rdc30',
      periodStart: now - 8 * DAY,
      periodEnd: now - DAY - 1,
      layoutVersion: 'rdc30-2026.1',
      institutionCode: '0000000001',
      asOfPosition: 42,
      requestedAt: now,
    });
  });

  it.each([
    ['a period not ended yet', { periodEnd: now }, 'period_not_ended'],
    ['an end before the start', { periodStart: now - DAY, periodEnd: now - 2 * DAY }, 'before_period_start'],
    ['more than 93 days', { periodStart: now - 95 * DAY }, 'period_too_long'],
  ])('refuses %s on periodEnd', (_case, overrides, reason) => {
    expect(refusalOf(() => decideRequestReport(given(overrides))).errors).toEqual([{ field: 'periodEnd', reason }]);
  });

  it('refuses a tenant without an institution code', () => {
    expect(refusalOf(() => decideRequestReport(given({ institutionCode: null }))).code).toBe('institution_code_not_configured');
  });
});
