import { readFileSync } from 'node:fs';
import { ConfigError } from '@ledger/platform';
import { HolidayExtension, parseHolidayExtension } from './holiday-table';

/** The environment variable naming the operator's extension file; read by the process's configuration, not here. */
export const HOLIDAYS_FILE_ENV = 'LEDGER_HOLIDAYS_FILE';

/**
 * Reads and validates an operator's holiday extension: a holiday declared
 * after the release (a one-off election day, a new law) takes effect on
 * restart without a new build. This is the calendar's only I/O; pass the
 * result's `holidays` to `bankingCalendar`.
 */
export function loadHolidayFile(path: string): HolidayExtension {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`${HOLIDAYS_FILE_ENV}: cannot read ${path}: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${path}: not valid JSON: ${(error as Error).message}`);
  }
  return parseHolidayExtension(json, path);
}
