const TIME_ZONE = 'America/Santiago';

// Numeric parts only: the digits do not depend on the ICU version's locale
// data, while a formatted Spanish string ("p. m.", narrow spaces) does, and
// the certificate's bytes must not change with the runtime.
const SANTIAGO = new Intl.DateTimeFormat('en-US', {
  timeZone: TIME_ZONE,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});

/**
 * An instant as two lines: ISO-8601 UTC (exact, to the millisecond) and
 * Santiago civil time with its UTC offset, which is what a Chilean reader
 * checks against (the 15-banking-day window is counted in local days).
 */
export function formatInstant(epochMs: number, field: string): string {
  const { local, offset } = santiagoTime(epochMs, field);
  return `${new Date(epochMs).toISOString()} (UTC)\n${local} hora de Chile (${TIME_ZONE}, UTC${offset})`;
}

/** Santiago civil time to the second and its UTC offset, on one line: for an instant in a list. */
export function formatSantiagoTime(epochMs: number, field: string): string {
  const { local, offset } = santiagoTime(epochMs, field);
  return `${local} (UTC${offset})`;
}

function santiagoTime(epochMs: number, field: string): { local: string; offset: string } {
  if (!Number.isSafeInteger(epochMs)) throw new Error(`${field} must be an integer of epoch milliseconds`);
  const parts = Object.fromEntries(SANTIAGO.formatToParts(epochMs).map((part) => [part.type, part.value]));
  const local = `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second}`;
  // The offset is whatever the time-zone database says for that instant
  // (Chile's summer time has moved more than once), read back from the parts.
  const localAsUtc = Date.UTC(+parts.year, +parts.month - 1, +parts.day, +parts.hour, +parts.minute, +parts.second);
  const offsetMinutes = Math.round((localAsUtc - Math.floor(epochMs / 1000) * 1000) / 60_000);
  return { local, offset: formatOffset(offsetMinutes) };
}

function formatOffset(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const absolute = Math.abs(minutes);
  return `${sign}${String(Math.floor(absolute / 60)).padStart(2, '0')}:${String(absolute % 60).padStart(2, '0')}`;
}
