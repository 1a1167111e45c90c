import fc from 'fast-check';
import { ReportFieldError, renderRecord } from './fixed-width';
import { LayoutField, SHIPPED_REPORT_LAYOUTS, parseReportLayout } from './report-layout';

type Case = { field: LayoutField; value: string; expected: string };

/** A field of a random type and length, a value that fits it, and how it must be written. */
const fittingField: fc.Arbitrary<Case> = fc.oneof(
  fc.integer({ min: 1, max: 30 }).chain((length) =>
    fc.stringMatching(new RegExp(`^\\d{1,${length}}$`)).map((value) => ({ field: field('numeric', length), value, expected: value.padStart(length, '0') })),
  ),
  fc.integer({ min: 1, max: 30 }).chain((length) =>
    fc.stringMatching(new RegExp(`^[\\x20-\\x7e]{0,${length}}$`)).map((value) => ({ field: field('alphanumeric', length), value, expected: value.padEnd(length, ' ') })),
  ),
  fc.integer({ min: 10, max: 12 }).chain((length) =>
    fc.tuple(fc.stringMatching(/^[1-9]\d{0,8}$/), fc.constantFrom(...'0123456789K')).map(([body, check]) => ({
      field: field('rut', length),
      value: `${body}-${check}`,
      expected: body.padStart(length - 1, '0') + check,
    })),
  ),
);

function field(type: LayoutField['type'], length: number): LayoutField {
  return { name: 'f', start: 1, length, type };
}

/** The cases laid out one after another as one record, each field at the columns its predecessors leave. */
function laidOut(cases: Case[]): LayoutField[] {
  let start = 1;
  return cases.map((c, i) => {
    const placed = { ...c.field, name: `f${i}`, start };
    start += c.field.length;
    return placed;
  });
}

describe('fixed-width fields', () => {
  it('writes every value at its columns: numeric zero-padded right-aligned, alphanumeric space-padded left-aligned, RUTs zero-padded before the check digit', () => {
    fc.assert(
      fc.property(fc.array(fittingField, { minLength: 1, maxLength: 12 }), (cases) => {
        const fields = laidOut(cases);
        const record = renderRecord(fields, Object.fromEntries(cases.map((c, i) => [`f${i}`, c.value])));
        expect(record).toHaveLength(fields.reduce((total, f) => total + f.length, 0));
        fields.forEach((f, i) => expect(record.slice(f.start - 1, f.start - 1 + f.length)).toBe(cases[i].expected));
      }),
    );
  });

  it('refuses a value longer than its field instead of cutting it', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20 }), fc.constantFrom<LayoutField['type']>('numeric', 'alphanumeric'), (length, type) => {
        expect(() => renderRecord([field(type, length)], { f: '9'.repeat(length + 1) })).toThrow(ReportFieldError);
      }),
    );
  });

  it('writes an absent value as zeros in numeric and RUT fields, spaces elsewhere, or the field`s own absent text', () => {
    const fields = laidOut([
      { field: field('numeric', 3), value: '', expected: '' },
      { field: field('rut', 10), value: '', expected: '' },
      { field: field('alphanumeric', 4), value: '', expected: '' },
      { field: { ...field('date', 8), absent: '99991231' }, value: '', expected: '' },
    ]);
    expect(renderRecord(fields, {})).toBe('000' + '0000000000' + '    ' + '99991231');
  });

  it('refuses non-digits in a numeric field and non-ASCII in an alphanumeric one, naming the field and not the value', () => {
    expect(() => renderRecord([field('numeric', 5)], { f: '12a' })).toThrow('field f: a numeric field takes digits only');
    expect(() => renderRecord([field('alphanumeric', 5)], { f: 'Ñuñoa' })).toThrow('field f: an alphanumeric field takes printable ASCII only');
  });
});

describe('report layouts', () => {
  const rdc30 = SHIPPED_REPORT_LAYOUTS.rdc30;

  it('ship RDC30 and RDC31 with fields that cover each record exactly', () => {
    for (const layout of Object.values(SHIPPED_REPORT_LAYOUTS)) {
      for (const fields of [layout.header, layout.detail]) expect(fields.reduce((total, f) => total + f.length, 0)).toBe(layout.recordLength);
    }
  });

  it('refuse a field that overlaps the previous one, a record of the wrong length and a constant of the wrong size, naming each problem', () => {
    const broken = {
      ...rdc30,
      recordLength: 137,
      header: rdc30.header.map((f) => (f.name === 'fileId' ? { ...f, value: 'RDC3' } : f)),
      detail: rdc30.detail.map((f) => (f.name === 'consentTime' ? { ...f, start: 28 } : f)),
    };
    expect(() => parseReportLayout(broken, 'test')).toThrow(
      /header: field 2 \(fileId\): a constant needs a printable ASCII value of exactly its length.*header: fields end at column 136, the record length is 137.*detail: field 3 \(consentTime\): starts at column 28, expected 29/,
    );
  });

  it('refuse a date field that is not 8 characters and an unknown type', () => {
    const broken = { ...rdc30, detail: [{ ...rdc30.detail[0], type: 'binary' }, { ...rdc30.detail[1], length: 6 }, ...rdc30.detail.slice(2)] };
    expect(() => parseReportLayout(broken, 'test')).toThrow(/field 1 \(internalConsentCode\): type must be one of.*field 2 \(consentDate\): a date field is 8 characters/);
  });
});
