import { localDateOf } from '@ledger/redec';
import { DAY, HOUR, Instant, MINUTE } from './commands';
import { Answer } from './ledger';

/** How a counterexample reads: every instant relative to the first command's clock, `t`. */
export class Clock {
  constructor(readonly start: number) {}

  /** `t+2d 04:00`, with seconds and milliseconds only when there are some. */
  at(instant: number): string {
    const delta = instant - this.start;
    const abs = Math.abs(delta);
    const days = Math.floor(abs / DAY);
    const hours = Math.floor((abs % DAY) / HOUR);
    const minutes = Math.floor((abs % HOUR) / MINUTE);
    const rest = abs % MINUTE;
    const seconds = rest === 0 ? '' : `:${String(Math.floor(rest / 1000)).padStart(2, '0')}.${String(rest % 1000).padStart(3, '0')}`;
    return `t${delta < 0 ? '-' : '+'}${days}d ${pad(hours)}:${pad(minutes)}${seconds}`;
  }

  /** The instant, and how the command stated it when that says more. */
  instant(value: number, stated: Instant, capped: boolean): string {
    if (stated.anchor === 'now' && stated.offset === 0) return this.at(value);
    return `${this.at(value)} (${stated.anchor}${signed(stated.offset)}${capped ? ', capped at now' : ''})`;
  }

  /** An answer as the trace shows it. */
  answer(answer: Answer): string {
    if (!answer.accepted) return `refused ${answer.code}${answer.reason ? ` (${answer.reason})` : ''}`;
    if (!answer.decision) return 'accepted';
    const { status, denyReasonCode, expiresAt } = answer.decision;
    return status === 'authorized' ? `authorized, expiresAt ${expiresAt === null ? 'null' : this.at(expiresAt)}` : `denied ${denyReasonCode}`;
  }

  /** A local day in Santiago with its weekday: windows count banking days. */
  localDay(instant: number): string {
    const day = localDateOf(instant);
    const weekday = new Date(`${day}T12:00:00Z`).toLocaleDateString('en-US', { weekday: 'short', timeZone: 'UTC' });
    return `${weekday} ${day}`;
  }
}

const pad = (n: number) => String(n).padStart(2, '0');

/** An offset the way a reader says it: `-1ms`, `+5min`, `-7d`, `+3d 02:15`. */
export function signed(ms: number): string {
  if (ms === 0) return '';
  const sign = ms < 0 ? '-' : '+';
  const abs = Math.abs(ms);
  if (abs < 1000) return `${sign}${abs}ms`;
  const units: Array<[number, string]> = [
    [DAY, 'd'],
    [HOUR, 'h'],
    [MINUTE, 'min'],
    [1000, 's'],
  ];
  const [unit, name] = units.find(([u]) => abs % u === 0) ?? [1, 'ms'];
  return unit === 1 ? `${sign}${formatDuration(abs)}` : `${sign}${abs / unit}${name}`;
}

export function formatDuration(ms: number): string {
  const days = Math.floor(ms / DAY);
  const clock = `${pad(Math.floor((ms % DAY) / HOUR))}:${pad(Math.floor((ms % HOUR) / MINUTE))}:${pad(Math.floor((ms % MINUTE) / 1000))}.${String(ms % 1000).padStart(3, '0')}`;
  return days > 0 ? `${days}d ${clock}` : clock;
}
