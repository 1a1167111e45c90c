import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderRdc30, renderRdc31 } from './report-records';
import { SHIPPED_REPORT_LAYOUTS } from './report-layout';
import { accesses, calendar, consents, institutionCode, weekA, weekB } from './testing/report-facts';

const golden = (name: string) => readFileSync(join(__dirname, 'testing', 'golden', name));
const lines = (content: Buffer) => content.toString('ascii').split('\r\n').slice(0, -1);

describe('RDC30 and RDC31 rendered from a fixed set of facts', () => {
  const files = {
    'rdc30-week-a.txt': renderRdc30(SHIPPED_REPORT_LAYOUTS.rdc30, institutionCode, weekA, consents),
    'rdc30-week-b.txt': renderRdc30(SHIPPED_REPORT_LAYOUTS.rdc30, institutionCode, weekB, consents),
    'rdc31-week-a.txt': renderRdc31(SHIPPED_REPORT_LAYOUTS.rdc31, institutionCode, weekA, accesses, calendar),
    'rdc31-week-b.txt': renderRdc31(SHIPPED_REPORT_LAYOUTS.rdc31, institutionCode, weekB, accesses, calendar),
  };

  it.each(Object.keys(files))('%s is byte for byte the golden file', (name) => {
    expect(files[name as keyof typeof files].content.equals(golden(name))).toBe(true);
  });

  it.each(Object.keys(files))('every line of %s is the record length, ended by CRLF', (name) => {
    const { content, records } = files[name as keyof typeof files];
    const recordLength = SHIPPED_REPORT_LAYOUTS[name.slice(0, 5) as 'rdc30' | 'rdc31'].recordLength;
    expect(content.toString('ascii').endsWith('\r\n')).toBe(true);
    expect(lines(content)).toHaveLength(records + 1);
    for (const line of lines(content)) expect(line).toHaveLength(recordLength);
  });

  it('puts each consent in the week its grant is reported in, and a revocation or extension in the next file', () => {
    const codes = (content: Buffer) => lines(content).slice(1).map((line) => line.slice(0, 20));
    expect(codes(files['rdc30-week-a.txt'].content)).toEqual(['RV000000000000000004', 'XT000000000000000005', 'EX000000000000000003', 'WB000000000000000001']);
    expect(codes(files['rdc30-week-b.txt'].content)).toEqual([
      'RV000000000000000004',
      'XT000000000000000005',
      'LT000000000000000008',
      'WB000000000000000002',
      'DS000000000000000006',
      'DS000000000000000007',
    ]);
    expect(files['rdc30-week-b.txt'].metadata).toEqual({ totalRecords: 6, captured: 4, corrected: 2, withExecutive: 0 });
  });

  it('writes local times across the change of clocks, an open end for an extended consent and the end of a revoked one', () => {
    const byCode = new Map(lines(files['rdc30-week-b.txt'].content).slice(1).map((line) => [line.slice(0, 20), line]));
    // Both 23:30 of Holy Saturday, an hour apart in UTC.
    expect(byCode.get('DS000000000000000006')!.slice(20, 34)).toBe('20260404233000');
    expect(byCode.get('DS000000000000000007')!.slice(20, 34)).toBe('20260404233000');
    expect(byCode.get('XT000000000000000005')!.slice(34, 48)).toBe('99991231235959');
    expect(byCode.get('RV000000000000000004')!.slice(34, 48)).toBe('20260407162000');
  });

  it('writes the executive RUT, zeros without one, and a hash of the line before it', () => {
    const [, ...details] = lines(files['rdc30-week-a.txt'].content);
    const executive = details.find((line) => line.startsWith('EX'))!;
    expect(executive.slice(48, 58)).toBe('0098765433');
    expect(executive.slice(62, 72)).toBe('0076543216');
    expect(details.find((line) => line.startsWith('WB'))!.slice(62, 72)).toBe('0000000000');
    for (const line of details) expect(line.slice(72)).toBe(createHash('sha256').update(line.slice(0, 72)).digest('hex'));
  });

  it('counts accesses by a mandatary, on banking days and outside business hours for the cover sheet', () => {
    expect(files['rdc31-week-a.txt'].metadata).toEqual({ totalRecords: 2, byMandatary: 1, onBankingDays: 1, outsideBusinessHours: 1 });
    expect(files['rdc31-week-b.txt'].metadata).toEqual({ totalRecords: 3, byMandatary: 1, onBankingDays: 1, outsideBusinessHours: 1 });
  });

  it('renders the same period twice to the same bytes', () => {
    expect(renderRdc30(SHIPPED_REPORT_LAYOUTS.rdc30, institutionCode, weekB, [...consents].reverse()).content.equals(files['rdc30-week-b.txt'].content)).toBe(true);
  });
});
