import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@ledger/platform';
import { loadReportLayouts } from './load-report-layouts';
import { SHIPPED_REPORT_LAYOUTS } from './report-layout';

describe('LEDGER_REPORT_LAYOUTS_FILE', () => {
  const dir = mkdtempSync(join(tmpdir(), 'layouts-'));
  const file = (name: string, document: unknown) => {
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify(document));
    return path;
  };

  it('replaces the shipped layout of its kind and keeps the other', () => {
    const corrected = { ...SHIPPED_REPORT_LAYOUTS.rdc31, version: 'rdc31-2026.2', lineEnding: 'LF' };
    const layouts = loadReportLayouts(file('ok.json', { layouts: [corrected] }));
    expect(layouts.rdc31).toEqual(corrected);
    expect(layouts.rdc30).toBe(SHIPPED_REPORT_LAYOUTS.rdc30);
  });

  it('refuses a corrected layout that keeps the shipped version, an invalid one, and a file that is not JSON', () => {
    expect(() => loadReportLayouts(file('same.json', { layouts: [SHIPPED_REPORT_LAYOUTS.rdc30] }))).toThrow(/keeps the shipped version rdc30-2026.1/);
    expect(() => loadReportLayouts(file('bad.json', { layouts: [{ ...SHIPPED_REPORT_LAYOUTS.rdc30, version: 'x', recordLength: 10 }] }))).toThrow(ConfigError);
    const notJson = join(dir, 'not.json');
    writeFileSync(notJson, '{');
    expect(() => loadReportLayouts(notJson)).toThrow(/cannot be read as JSON/);
  });

  it('is the shipped layouts when unset', () => {
    expect(loadReportLayouts(undefined)).toBe(SHIPPED_REPORT_LAYOUTS);
  });
});
