import { csvLine } from './csv';

describe('csvLine', () => {
  it('quotes what needs quoting and nothing else', () => {
    expect(csvLine(['K6R5408F', 'a,b', 'say "yes"', 'two\nlines', 42, null])).toBe('K6R5408F,"a,b","say ""yes""","two\nlines",42,\r\n');
  });

  it('never hands a spreadsheet a formula', () => {
    expect(csvLine(['=HYPERLINK("http://x")', '+1', '-1', '@SUM(A1)', 'plain'])).toBe(`"'=HYPERLINK(""http://x"")",'+1,'-1,'@SUM(A1),plain\r\n`);
    // A number is a number, its sign included.
    expect(csvLine([-5])).toBe('-5\r\n');
  });
});
