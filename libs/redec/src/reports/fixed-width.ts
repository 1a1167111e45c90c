import { createHash } from 'node:crypto';
import { localDateOf, localTimeOf } from '../calendar/local-time';
import { LayoutField, ReportLayout, isPrintableAscii } from './report-layout';

/** A field's value before formatting: text, an instant (epoch ms) for dates and times, or null when there is none. */
export type FieldValue = string | number | null;
export type RecordValues = Readonly<Record<string, FieldValue>>;

/** A value cannot be written in its field. The message names the field, never the value (it may be an identifier). */
export class ReportFieldError extends Error {
  constructor(field: string, problem: string) {
    super(`field ${field}: ${problem}`);
    this.name = 'ReportFieldError';
  }
}

/**
 * One fixed-width record: every field at its columns, so the result is
 * exactly the layout's record length. A value that does not fit is an
 * error, never truncated: a cut identifier in a regulatory file is a wrong
 * fact, not a formatting detail.
 */
export function renderRecord(fields: readonly LayoutField[], values: RecordValues): string {
  let record = '';
  for (const field of fields) record += formatField(field, coded(field, values[field.name] ?? null), record);
  return record;
}

/** The exact bytes of a file: the header, then one line per detail record, each ended by the layout's line ending. */
export function renderFile(layout: ReportLayout, header: RecordValues, details: readonly RecordValues[]): Buffer {
  const end = layout.lineEnding === 'CRLF' ? '\r\n' : '\n';
  const lines = [renderRecord(layout.header, header), ...details.map((values) => renderRecord(layout.detail, values))];
  return Buffer.from(lines.map((line) => line + end).join(''), 'ascii');
}

function formatField(field: LayoutField, value: FieldValue, before: string): string {
  const { name, length } = field;
  switch (field.type) {
    case 'filler':
      return ' '.repeat(length);
    case 'constant':
      return field.value!;
    case 'sha256':
      return createHash('sha256').update(before, 'ascii').digest('hex');
    default:
      break;
  }
  if (value === null) return field.absent ?? (field.type === 'numeric' || field.type === 'rut' ? '0' : ' ').repeat(length);
  switch (field.type) {
    case 'numeric': {
      const digits = String(value);
      if (!/^\d+$/.test(digits)) throw new ReportFieldError(name, 'a numeric field takes digits only');
      return fitField(name, digits.padStart(length, '0'), length);
    }
    case 'alphanumeric': {
      const text = String(value);
      if (!isPrintableAscii(text)) throw new ReportFieldError(name, 'an alphanumeric field takes printable ASCII only');
      return fitField(name, text.padEnd(length, ' '), length);
    }
    case 'date':
      return localDateOf(instant(name, value)).replace(/-/g, '');
    case 'time':
      return localTimeOf(instant(name, value)).replace(/:/g, '');
    case 'rut': {
      // A normalized RUT (body-checkDigit, docs: libs/ledger rut.ts).
      const match = /^(\d+)-([\dK])$/.exec(String(value));
      if (!match) throw new ReportFieldError(name, 'a rut field takes a normalized RUT');
      return fitField(name, match[1].padStart(length - 1, '0') + match[2], length);
    }
    default: {
      const unknown: never = field.type;
      return unknown;
    }
  }
}

/** The code a field's table gives the value; a value the table does not name is an error, never a guess. */
function coded(field: LayoutField, value: FieldValue): FieldValue {
  if (field.codes === undefined || value === null) return value;
  if (!Object.hasOwn(field.codes, String(value))) throw new ReportFieldError(field.name, 'the layout has no code for this value');
  return field.codes[String(value)];
}

function fitField(name: string, text: string, length: number): string {
  if (text.length > length) throw new ReportFieldError(name, `the value is longer than the field's ${length} characters`);
  return text;
}

function instant(name: string, value: FieldValue): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new ReportFieldError(name, 'a date or time field takes an instant');
  return value;
}
