/**
 * Chile's RUT (Rol Único Tributario): a body of digits and a check digit
 * (0-9 or K) computed modulo 11. People type it as `12.345.678-5`,
 * `12345678-5` or `123456785`; all of these normalize to `12345678-5`.
 */
export function normalizeRut(input: string): string | null {
  const compact = input.replace(/[.\s-]/g, '').toUpperCase();
  if (!/^\d{1,9}[0-9K]$/.test(compact)) return null;
  const body = compact.slice(0, -1).replace(/^0+(?=\d)/, '');
  const checkDigit = compact.slice(-1);
  if (body === '0' || rutCheckDigit(body) !== checkDigit) return null;
  return `${body}-${checkDigit}`;
}

export function rutCheckDigit(body: string): string {
  let sum = 0;
  let factor = 2;
  for (let i = body.length - 1; i >= 0; i--) {
    sum += Number(body[i]) * factor;
    factor = factor === 7 ? 2 : factor + 1;
  }
  const remainder = 11 - (sum % 11);
  if (remainder === 11) return '0';
  if (remainder === 10) return 'K';
  return String(remainder);
}
