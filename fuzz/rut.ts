import { Random } from './random';

/**
 * RUTs (Chile's tax identifier, `12345678-5`), computed here independently
 * of the service's own rule so that the harness cannot agree with a bug.
 */
export function checkDigitOf(body: number): string {
  const digits = String(body);
  let sum = 0;
  let factor = 2;
  for (let i = digits.length - 1; i >= 0; i--) {
    sum += Number(digits[i]) * factor;
    factor = factor === 7 ? 2 : factor + 1;
  }
  const remainder = 11 - (sum % 11);
  return remainder === 11 ? '0' : remainder === 10 ? 'K' : String(remainder);
}

/** A valid RUT with an eight-digit body, drawn from `random`. */
export function randomRut(random: Random): string {
  const body = random.int(10_000_000, 99_999_999);
  return `${body}-${checkDigitOf(body)}`;
}

/** A RUT as integrators type it: plain, with dots, without the dash, with a lower-case k. */
export function formatRut(rut: string, random: Random): string {
  const [body, checkDigit] = rut.split('-');
  return random.pick([`${body}-${checkDigit}`, `${dotted(body)}-${checkDigit}`, `${body}${checkDigit}`, `${dotted(body)}-${checkDigit.toLowerCase()}`]);
}

/**
 * Any way a RUT may be written in a response: with or without dots or other
 * separators between digit groups, with or without the dash and check digit,
 * in either case; not inside a longer number (an epoch-ms timestamp holds
 * eight-digit runs by chance).
 */
export function rutPattern(rut: string): RegExp {
  const [body, checkDigit] = rut.split('-');
  const groups = dotted(body).split('.').join('[.,\\s]?');
  return new RegExp(`(?<![0-9])${groups}(?:[-\\s]?${checkDigit === 'K' ? '[kK]' : checkDigit})?(?![0-9])`);
}

const dotted = (body: string): string => body.replace(/\B(?=(\d{3})+(?!\d))/g, '.');
