import { refusalOf } from '@ledger/platform/testing';
import { decideReportContentErasure, decideRequestReport, RequestReportInput } from './report.decider';
import { Report, ReportRendered, evolveReport } from './report.events';
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

describe('erasing the stored content of a report (decision 0040)', () => {
  const rendered = (kind: 'rdc30' | 'rdc31', customerIds?: string[]): Report => {
    const requested = decideRequestReport(given({ kind }));
    const data: ReportRendered['data'] = { reportId: 'rep-1', kind, periodStart: 0, periodEnd: 1, layoutVersion: 'v', contentSha256: 'a'.repeat(64), size: 10, records: 2, metadata: {}, customerIds, renderedAt: now };
    return evolveReport(evolveReport(null, requested), { type: 'ReportRendered', data })!;
  };
  const erased = new Set(['cus-2', 'cus-9']);

  it('erases a file that names an erased customer, saying which, and not repeating its hash (decision 0045)', () => {
    expect(decideReportContentErasure(rendered('rdc30', ['cus-1', 'cus-2']), erased, now)).toEqual({
      type: 'ReportContentErased',
      data: { reportId: 'rep-1', customerIds: ['cus-2'], erasedAt: now },
    });
  });

  it('keeps a file that names no erased customer, one already erased, and one not rendered', () => {
    expect(decideReportContentErasure(rendered('rdc30', ['cus-1']), erased, now)).toBeNull();
    expect(decideReportContentErasure(rendered('rdc31', []), erased, now)).toBeNull();
    const once = rendered('rdc30', ['cus-2']);
    const done = evolveReport(once, decideReportContentErasure(once, erased, now)!)!;
    expect(done.contentErased).toMatchObject({ erasedAt: now });
    expect(decideReportContentErasure(done, erased, now + 1)).toBeNull();
    expect(decideReportContentErasure(evolveReport(null, decideRequestReport(given()))!, erased, now)).toBeNull();
  });

  it('takes an RDC30 rendered before the decision, which does not say whom it names, to name every customer', () => {
    expect(decideReportContentErasure(rendered('rdc30'), erased, now)?.data.customerIds).toEqual([]);
    expect(decideReportContentErasure(rendered('rdc30'), new Set(), now)).toBeNull();
    expect(decideReportContentErasure(rendered('rdc31'), erased, now)).toBeNull();
  });
});
