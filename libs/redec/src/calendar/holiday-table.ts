import { ConfigError } from '@ledger/platform';
import { isLocalDate } from './local-time';

/**
 * How an entry's date was established: `fixed` is the same day every year;
 * `easter`, `solstice` and `movable` (Ley 19.668, Ley 20.299) are computed
 * with the rule written in the entry; `conditional` exists only in years whose
 * calendar meets the law's condition (Ley 20.215, Ley 20.983); `one-off` was
 * declared for that date alone (election days, special laws).
 */
export const HOLIDAY_KINDS = ['fixed', 'easter', 'solstice', 'movable', 'conditional', 'one-off'] as const;
export type HolidayKind = (typeof HOLIDAY_KINDS)[number];

export interface HolidayEntry {
  /** The local day in Chile, `YYYY-MM-DD`. */
  date: string;
  name: string;
  kind: HolidayKind;
  /** The laws that make the day a holiday. */
  basis?: string;
  /** For computed dates: the rule applied, so a reader can check the date. */
  rule?: string;
  note?: string;
}

/** The years the table is complete for: outside them the calendar refuses to answer rather than miss a holiday. */
export interface HolidayCoverage {
  from: string;
  through: string;
}

export interface HolidayTable {
  /** The date the table was compiled, for the audit trail of computed deadlines. */
  version: string;
  source: string;
  coverage: HolidayCoverage;
  holidays: HolidayEntry[];
}

/** An operator's additions (LEDGER_HOLIDAYS_FILE): the table's shape without coverage, which only a release extends. */
export type HolidayExtension = Omit<HolidayTable, 'coverage'>;

const ENTRY_KEYS = new Set(['date', 'name', 'kind', 'basis', 'rule', 'note']);
const OPTIONAL_TEXT = ['basis', 'rule', 'note'] as const;

/**
 * Validates the shipped holiday table. Objects are closed so that a misspelt
 * field (`dates`, `kind: "oneoff"`) fails loudly instead of silently dropping
 * a holiday; each error names the file and quotes the offending entry.
 */
export function parseHolidayTable(value: unknown, origin: string): HolidayTable {
  const fail: Fail = failure(origin);
  if (!isRecord(value) || value.coverage === undefined) return fail('must be a JSON object with version, source, coverage and holidays');
  const coverage = parseCoverage(value.coverage, fail);
  const table = parseCommon(value, ['coverage'], fail);
  table.holidays.forEach((entry, index) => {
    if (entry.date < coverage.from || entry.date > coverage.through) {
      fail(`holidays[${index}] ${JSON.stringify(entry)}: date lies outside the coverage ${coverage.from}..${coverage.through}`);
    }
  });
  return { ...table, coverage };
}

/** Validates an operator's extension file, with the same rules as the shipped table. */
export function parseHolidayExtension(value: unknown, origin: string): HolidayExtension {
  const fail: Fail = failure(origin);
  if (!isRecord(value)) return fail('must be a JSON object with version, source and holidays');
  if (value.coverage !== undefined) fail('coverage cannot be set here: the years covered are those of the shipped table, and extending them needs a release');
  return parseCommon(value, [], fail);
}

type Fail = (message: string) => never;

function failure(origin: string): Fail {
  return (message) => {
    throw new ConfigError(`${origin}: ${message}`);
  };
}

function parseCommon(value: Record<string, unknown>, extraKeys: string[], fail: Fail): HolidayExtension {
  const known = new Set(['version', 'source', 'holidays', ...extraKeys]);
  const unknownKey = Object.keys(value).find((key) => !known.has(key));
  if (unknownKey !== undefined) fail(`unknown field "${unknownKey}"`);
  if (!isText(value.version)) fail('version must be a non-empty string');
  if (!isText(value.source)) fail('source must be a non-empty string');
  if (!Array.isArray(value.holidays)) return fail('holidays must be an array');
  const holidays = value.holidays.map((entry: unknown, index: number) =>
    parseEntry(entry, (message) => fail(`holidays[${index}] ${JSON.stringify(entry)}: ${message}`)),
  );
  return { version: value.version as string, source: value.source as string, holidays };
}

function parseCoverage(value: unknown, fail: Fail): HolidayCoverage {
  if (!isRecord(value) || !isLocalDate(value.from) || !isLocalDate(value.through) || Object.keys(value).length !== 2) {
    return fail('coverage must be { "from": "YYYY-MM-DD", "through": "YYYY-MM-DD" }');
  }
  if (value.from > value.through) fail('coverage.from must not be after coverage.through');
  return { from: value.from, through: value.through };
}

function parseEntry(entry: unknown, fail: Fail): HolidayEntry {
  if (!isRecord(entry)) return fail('must be an object');
  const unknownKey = Object.keys(entry).find((key) => !ENTRY_KEYS.has(key));
  if (unknownKey !== undefined) fail(`unknown field "${unknownKey}"`);
  if (!isLocalDate(entry.date)) fail('date must be a calendar day YYYY-MM-DD');
  if (!isText(entry.name)) fail('name must be a non-empty string');
  if (!HOLIDAY_KINDS.includes(entry.kind as HolidayKind)) fail(`kind must be one of ${HOLIDAY_KINDS.join(', ')}`);
  const parsed: HolidayEntry = { date: entry.date as string, name: entry.name as string, kind: entry.kind as HolidayKind };
  for (const field of OPTIONAL_TEXT) {
    if (entry[field] === undefined) continue;
    if (!isText(entry[field])) fail(`${field} must be a non-empty string when present`);
    parsed[field] = entry[field] as string;
  }
  return parsed;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isText(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}
