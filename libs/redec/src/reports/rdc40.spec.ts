import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ReportFieldError } from './fixed-width';
import { DisputeEventFacts, renderRdc40 } from './report-records';
import { SHIPPED_REPORT_LAYOUTS, parseReportLayout } from './report-layout';

// RDC40 (decision 0074) from a fixed set of dispute events, byte for byte
// against files written by hand from the layout's columns
// (testing/golden/rdc40-*.txt), not by the renderer.

const golden = (name: string) => readFileSync(join(__dirname, 'testing', 'golden', name));
const at = (local: string) => Date.parse(local);
const MINUTE = 60_000;
const institutionCode = '0000000064';
/** Thursday 3 December 2026 in Santiago (UTC-3). */
const dayA = { periodStart: at('2026-12-03T00:00:00-03:00'), periodEnd: at('2026-12-04T00:00:00-03:00') - 1 };
/** Saturday 5 December 2026: no dispute moved. */
const dayB = { periodStart: at('2026-12-05T00:00:00-03:00'), periodEnd: at('2026-12-06T00:00:00-03:00') - 1 };

const first = { rightsRequestId: 'aaaaaaaa-0000-4000-8000-000000000001', channel: 'web', dispute: { classification: 'rectification', reasonCode: '03', operationReference: 'OP-2026-0001' } } as const;
const second = { rightsRequestId: 'bbbbbbbb-0000-4000-8000-000000000002', channel: 'branch', dispute: { classification: 'cancellation', reasonCode: '07', operationReference: 'LOAN-77' } } as const;
const late = { rightsRequestId: 'cccccccc-0000-4000-8000-000000000003', channel: 'phone', dispute: { classification: 'update', reasonCode: '01', operationReference: 'X-1' } } as const;
const events: DisputeEventFacts[] = [
  // Filed on the 2nd, answered on the 3rd: only its closing is the 3rd's.
  { ...second, event: 'filed', at: at('2026-12-02T16:00:00-03:00'), recordedAt: at('2026-12-02T16:01:00-03:00'), answer: 'pending' },
  { ...second, event: 'closed', at: at('2026-12-03T17:30:00-03:00'), recordedAt: at('2026-12-03T17:31:00-03:00'), answer: 'partially_approved' },
  { ...first, event: 'filed', at: at('2026-12-03T09:15:00-03:00'), recordedAt: at('2026-12-03T09:16:00-03:00'), answer: 'pending' },
  { ...first, event: 'analysis_started', at: at('2026-12-03T11:00:00-03:00'), recordedAt: at('2026-12-03T11:00:00-03:00') + MINUTE, answer: 'pending' },
  { ...first, event: 'closed', at: at('2026-12-04T10:00:00-03:00'), recordedAt: at('2026-12-04T10:01:00-03:00'), answer: 'approved' },
  // Filed late on the 2nd, recorded on the 3rd: the 3rd's file, dated the 2nd.
  { ...late, event: 'filed', at: at('2026-12-02T23:50:00-03:00'), recordedAt: at('2026-12-03T08:00:00-03:00'), answer: 'pending' },
];

describe('RDC40 rendered from a fixed set of dispute events', () => {
  it('is byte for byte the hand-written file of a day with events, in the order they happened, and counts them for the cover sheet', () => {
    const rendered = renderRdc40(SHIPPED_REPORT_LAYOUTS.rdc40, institutionCode, dayA, events);
    expect(rendered.content.toString('ascii')).toBe(golden('rdc40-day-a.txt').toString('ascii'));
    expect(rendered.content.equals(golden('rdc40-day-a.txt'))).toBe(true);
    expect(rendered.metadata).toEqual({ totalRecords: 4, filed: 2, analysisStarted: 1, closed: 1, noMovements: 0 });
  });

  it('is the header alone, the "no movements" file, for a day without events, and says so', () => {
    const rendered = renderRdc40(SHIPPED_REPORT_LAYOUTS.rdc40, institutionCode, dayB, events);
    expect(rendered.content.equals(golden('rdc40-day-b-no-movements.txt'))).toBe(true);
    expect(rendered).toMatchObject({ records: 0, metadata: { totalRecords: 0, noMovements: 1 } });
  });

  it('renders the same day twice to the same bytes, whatever order the events come in', () => {
    const again = renderRdc40(SHIPPED_REPORT_LAYOUTS.rdc40, institutionCode, dayA, [...events].reverse());
    expect(again.content.equals(golden('rdc40-day-a.txt'))).toBe(true);
  });

  it('refuses, naming the field, a channel longer than its field or a value the layout has no code for', () => {
    const long = { ...first, channel: 'x'.repeat(21), event: 'filed' as const, at: dayA.periodStart, recordedAt: dayA.periodStart, answer: 'pending' as const };
    expect(() => renderRdc40(SHIPPED_REPORT_LAYOUTS.rdc40, institutionCode, dayA, [long])).toThrow(new ReportFieldError('entryChannel', "the value is longer than the field's 20 characters"));
    const withoutCodes = parseReportLayout(
      { ...SHIPPED_REPORT_LAYOUTS.rdc40, version: 'rdc40-test', detail: SHIPPED_REPORT_LAYOUTS.rdc40.detail.map((field) => (field.name === 'classification' ? { ...field, codes: { update: '1' } } : field)) },
      'test',
    );
    expect(() => renderRdc40(withoutCodes, institutionCode, dayA, events)).toThrow(new ReportFieldError('classification', 'the layout has no code for this value'));
  });

  it('refuses at load a layout whose code does not fit its field', () => {
    const tooLong = { ...SHIPPED_REPORT_LAYOUTS.rdc40, version: 'rdc40-test', detail: SHIPPED_REPORT_LAYOUTS.rdc40.detail.map((field) => (field.name === 'event' ? { ...field, codes: { filed: '10' } } : field)) };
    expect(() => parseReportLayout(tooLong, 'test')).toThrow('field 5 (event): codes must map each value to printable ASCII no longer than the field');
  });
});
