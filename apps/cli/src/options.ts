import { InvalidArgumentError, Option } from 'commander';
import { UsageError } from './cli-error';

/**
 * The kinds of option value the commands take. Each is checked while the
 * command line is parsed, so a mistyped value is a usage error (naming the
 * option, never quoting the value) before any store, key table or Redis
 * connection is opened.
 */
export interface CliOption {
  /** Commander's flags, e.g. `--tenant <TENANT_ID>`, or `--dry-run` for a flag. */
  flags: string;
  description: string;
  required?: true;
  /** Turns the text given into the value the command receives, or throws InvalidArgumentError. */
  parse?: (value: string) => unknown;
  /** May be given several times: the command receives the values in the order given. */
  repeatable?: true;
}

export function toCommanderOption(option: CliOption): Option {
  const built = new Option(option.flags, option.description);
  if (option.required) built.makeOptionMandatory();
  // A flag (no <VALUE>) takes no argument: giving it twice means the same thing.
  if (!built.required) return built;
  const parse = option.parse ?? nonBlank;
  return built.argParser((value: string, previous: unknown) => {
    // Commander keeps the last of a repeated option; a second value is more likely a mistake than an intent.
    if (previous !== undefined && !option.repeatable) throw new UsageError(`${built.long} is given more than once; give it once`);
    try {
      return option.repeatable ? [...((previous as unknown[] | undefined) ?? []), parse(value)] : parse(value);
    } catch (error) {
      // Commander's own message quotes the value, and a value typed in the wrong place can be a secret (an API key for --key).
      if (error instanceof InvalidArgumentError) throw new UsageError(`${built.long} ${error.message}`);
      throw error;
    }
  });
}

export function nonBlank(value: string): string {
  if (value.trim() === '') throw new InvalidArgumentError('must not be blank');
  return value;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A uuid-shaped id (tenant, consent, endpoint), lower-cased as the ledger records it. */
export function uuidOf(what: string): (value: string) => string {
  return (value) => {
    if (!UUID.test(value)) throw new InvalidArgumentError(`must be a ${what} id`);
    return value.toLowerCase();
  };
}

export function keyId(value: string): string {
  if (!/^[0-9a-f]{24}$/.test(value)) throw new InvalidArgumentError('must be a key id (24 hexadecimal characters)');
  return value;
}

/** Epoch milliseconds or an ISO 8601 date. */
export function instant(value: string): number {
  const at = /^\d+$/.test(value) ? Number(value) : Date.parse(value);
  if (!Number.isSafeInteger(at)) throw new InvalidArgumentError('must be epoch milliseconds or an ISO 8601 date');
  return at;
}

export function oneOf(...choices: string[]): (value: string) => string {
  return (value) => {
    if (!choices.includes(value)) throw new InvalidArgumentError(`must be ${choices.join(' or ')}`);
    return value;
  };
}

export function onOff(value: string): boolean {
  return oneOf('on', 'off')(value) === 'on';
}

export function scopeList(value: string): string[] {
  const scopes = value.split(',').map((s) => s.trim()).filter(Boolean);
  if (scopes.length === 0) throw new InvalidArgumentError('must name at least one scope');
  return scopes;
}

/** A whole number from `min` to `max`. */
export function countFrom(min: number, max: number): (value: string) => number {
  return (value) => {
    const count = /^[1-9][0-9]*$/.test(value) ? Number(value) : NaN;
    if (!(count >= min && count <= max)) throw new InvalidArgumentError(`must be a whole number from ${min} to ${max}`);
    return count;
  };
}

/** A TCP port; 0 asks the system for a free one. */
export function port(value: string): number {
  const port = /^(0|[1-9][0-9]*)$/.test(value) ? Number(value) : NaN;
  if (!(port >= 0 && port <= 65535)) throw new InvalidArgumentError('must be a port number, 0 to 65535');
  return port;
}
