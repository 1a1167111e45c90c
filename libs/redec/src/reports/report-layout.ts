import { ConfigError } from '@ledger/platform';
import rdc30 from './layouts/rdc30.layout.json';
import rdc31 from './layouts/rdc31.layout.json';
import rdc40 from './layouts/rdc40.layout.json';

export const REPORT_KINDS = ['rdc30', 'rdc31', 'rdc40'] as const;
export type ReportKind = (typeof REPORT_KINDS)[number];

/**
 * How a field is written (docs/decisions/0033):
 * - `numeric`: digits, zero-padded, right-aligned;
 * - `alphanumeric`: printable ASCII, space-padded, left-aligned;
 * - `date` / `time`: an instant as the local date `YYYYMMDD` / time `HHMMSS` in America/Santiago;
 * - `rut`: a RUT's body zero-padded to length - 1 digits, then its check digit;
 * - `sha256`: the lowercase hex SHA-256 of the record's characters before the field;
 * - `constant`: the field's `value`; `filler`: spaces.
 * A field with no value is written as its `absent` text, or zeros (`numeric`, `rut`) or spaces.
 */
export const FIELD_TYPES = ['numeric', 'alphanumeric', 'date', 'time', 'rut', 'sha256', 'constant', 'filler'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export interface LayoutField {
  name: string;
  /** 1-based column of the field's first character, as official layouts number them. */
  start: number;
  length: number;
  type: FieldType;
  /** The text of a `constant` field. */
  value?: string;
  /** The text written when the record has no value for the field. */
  absent?: string;
  /** The code written for each value the service gives the field (an event, an outcome): a value without one is an error, never a guess. */
  codes?: Readonly<Record<string, string>>;
}

export interface ReportLayout {
  kind: ReportKind;
  /** Recorded with every report rendered under it. */
  version: string;
  description: string;
  /** Every line, header and details, is exactly this many characters before its line ending. */
  recordLength: number;
  lineEnding: 'CRLF' | 'LF';
  /** Local times (`HH:MM:SS`) from which and until which an access is inside business hours (cover sheet). */
  businessHours?: { from: string; to: string };
  header: LayoutField[];
  detail: LayoutField[];
}

export type ReportLayouts = Readonly<Record<ReportKind, ReportLayout>>;

const DATE_LENGTH = { date: 8, time: 6, sha256: 64 } as const;

/**
 * Checks a layout document and names every problem in it: the fields of a
 * record must follow each other from column 1 without gap or overlap up to
 * the record length, so a misnumbered field fails at start-up instead of
 * shifting every column of a file sent to the regulator.
 */
export function parseReportLayout(document: unknown, source: string): ReportLayout {
  const problems: string[] = [];
  const layout = document as Partial<ReportLayout> | null;
  if (!layout || typeof layout !== 'object') throw new ConfigError(`${source}: a layout must be an object.`);
  if (!REPORT_KINDS.includes(layout.kind as ReportKind)) problems.push(`kind must be one of ${REPORT_KINDS.join(', ')}`);
  if (typeof layout.version !== 'string' || !/^[\w.-]{1,40}$/.test(layout.version)) problems.push('version must be 1 to 40 letters, digits, ".", "_" or "-"');
  if (typeof layout.description !== 'string') problems.push('description must be a string');
  if (!Number.isInteger(layout.recordLength) || layout.recordLength! < 1 || layout.recordLength! > 4096) problems.push('recordLength must be an integer from 1 to 4096');
  if (layout.lineEnding !== 'CRLF' && layout.lineEnding !== 'LF') problems.push('lineEnding must be CRLF or LF');
  if (layout.businessHours !== undefined) {
    const { from, to } = layout.businessHours ?? {};
    if (!isClockTime(from) || !isClockTime(to) || from >= to) problems.push('businessHours must be { from, to }, local times HH:MM:SS with from before to');
  }
  for (const record of ['header', 'detail'] as const) {
    const fields = layout[record];
    if (!Array.isArray(fields) || fields.length === 0) {
      problems.push(`${record} must be a non-empty list of fields`);
      continue;
    }
    problems.push(...fieldProblems(fields, layout.recordLength ?? 0).map((p) => `${record}: ${p}`));
  }
  if (problems.length > 0) throw new ConfigError(`${source}: ${problems.join('; ')}.`);
  return layout as ReportLayout;
}

function fieldProblems(fields: LayoutField[], recordLength: number): string[] {
  const problems: string[] = [];
  const names = new Set<string>();
  let next = 1;
  for (const [index, field] of fields.entries()) {
    const at = `field ${index + 1} (${String(field?.name)})`;
    if (typeof field?.name !== 'string' || !/^[A-Za-z][A-Za-z0-9]*$/.test(field.name) || names.has(field.name)) {
      problems.push(`${at}: name must be a unique identifier`);
    }
    names.add(field?.name);
    if (!FIELD_TYPES.includes(field?.type)) problems.push(`${at}: type must be one of ${FIELD_TYPES.join(', ')}`);
    if (!Number.isInteger(field?.length) || field.length < 1) problems.push(`${at}: length must be a positive integer`);
    if (field?.start !== next) problems.push(`${at}: starts at column ${String(field?.start)}, expected ${next} (fields follow each other without gap or overlap)`);
    const fixed = DATE_LENGTH[field?.type as keyof typeof DATE_LENGTH];
    if (fixed !== undefined && field.length !== fixed) problems.push(`${at}: a ${field.type} field is ${fixed} characters`);
    if (field?.type === 'rut' && field.length < 2) problems.push(`${at}: a rut field needs at least 2 characters`);
    if (field?.type === 'constant' && (typeof field.value !== 'string' || field.value.length !== field.length || !isPrintableAscii(field.value))) {
      problems.push(`${at}: a constant needs a printable ASCII value of exactly its length`);
    }
    if (field?.absent !== undefined && (typeof field.absent !== 'string' || field.absent.length !== field.length || !isPrintableAscii(field.absent))) {
      problems.push(`${at}: absent must be printable ASCII of exactly the field's length`);
    }
    if (field?.codes !== undefined) {
      const codes = field.codes;
      const valid = typeof codes === 'object' && codes !== null && Object.values(codes).every((code) => typeof code === 'string' && code.length <= field.length && isPrintableAscii(code));
      if (!valid || Object.keys(codes).length === 0) problems.push(`${at}: codes must map each value to printable ASCII no longer than the field`);
    }
    next = (Number.isInteger(field?.start) ? field.start : next) + (Number.isInteger(field?.length) ? field.length : 0);
  }
  if (next - 1 !== recordLength) problems.push(`fields end at column ${next - 1}, the record length is ${recordLength}`);
  return problems;
}

export function isPrintableAscii(text: string): boolean {
  return /^[\x20-\x7e]*$/.test(text);
}

function isClockTime(value: unknown): value is string {
  return typeof value === 'string' && /^([01]\d|2[0-3]):[0-5]\d:[0-5]\d$/.test(value);
}

/** The layouts shipped with this release, checked when loaded. */
export const SHIPPED_REPORT_LAYOUTS: ReportLayouts = {
  rdc30: parseReportLayout(rdc30, 'layouts/rdc30.layout.json'),
  rdc31: parseReportLayout(rdc31, 'layouts/rdc31.layout.json'),
  rdc40: parseReportLayout(rdc40, 'layouts/rdc40.layout.json'),
};
