import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@ledger/platform';
import { bankingCalendar } from './banking-calendar';
import { initialAccessValidUntil } from './initial-access';
import { loadHolidayFile } from './load-holiday-file';

describe('loadHolidayFile', () => {
  let dir: string;
  const file = (name: string, content: string) => {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'holidays-'));
  });

  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads an extension whose one-off holiday shifts a deadline once merged', () => {
    const path = file(
      'extra.json',
      JSON.stringify({
        version: '2025-03-01',
        source: 'Diario Oficial, ley de feriado de prueba',
        holidays: [{ date: '2025-03-14', name: 'Feriado de prueba', kind: 'one-off', basis: 'Ley de prueba' }],
      }),
    );
    const extension = loadHolidayFile(path);
    expect(extension.version).toBe('2025-03-01');
    const grantedAt = Date.parse('2025-03-03T10:00:00-03:00');
    expect(initialAccessValidUntil(grantedAt, bankingCalendar())).toBe(Date.parse('2025-03-24T23:59:59.999-03:00'));
    expect(initialAccessValidUntil(grantedAt, bankingCalendar(extension.holidays))).toBe(Date.parse('2025-03-25T23:59:59.999-03:00'));
  });

  it('names the variable and the path when the file cannot be read', () => {
    const path = join(dir, 'missing.json');
    expect(() => loadHolidayFile(path)).toThrow(ConfigError);
    expect(() => loadHolidayFile(path)).toThrow(`LEDGER_HOLIDAYS_FILE: cannot read ${path}`);
  });

  it('names the path when the file is not JSON', () => {
    const path = file('broken.json', '{ "version": ');
    expect(() => loadHolidayFile(path)).toThrow(`${path}: not valid JSON`);
  });

  it('quotes the offending entry', () => {
    const bad = { date: '2025-02-30', name: 'Feriado de prueba', kind: 'one-off' };
    const path = file('bad.json', JSON.stringify({ version: 'v1', source: 'DO', holidays: [bad] }));
    expect(() => loadHolidayFile(path)).toThrow(
      new ConfigError(`${path}: holidays[0] ${JSON.stringify(bad)}: date must be a calendar day YYYY-MM-DD`),
    );
  });
});
