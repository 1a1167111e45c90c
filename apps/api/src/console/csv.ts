/**
 * One CSV line (RFC 4180): a cell with a comma, a quote or a line break is
 * quoted, its quotes doubled. A cell a spreadsheet would take for a formula
 * (`=`, `+`, `-`, `@`, a tab or a carriage return first) is written after an
 * apostrophe, so that opening an export runs nothing (OWASP, CSV injection).
 */
export function csvLine(cells: ReadonlyArray<string | number | null>): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

function csvCell(value: string | number | null): string {
  if (value === null) return '';
  const text = typeof value === 'number' ? String(value) : /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
