import { validationError } from '@ledger/platform';
import { normalizeRut } from './rut';
import { Verification } from './customer.events';

export interface IdentifierInput {
  system: string;
  type: string;
  value: string;
  verification?: Verification;
}

export interface NormalizedIdentifier {
  system: string;
  type: string;
  value: string;
  verification: Verification | null;
}

/** Identifier types whose values are Chilean RUTs, compared case-insensitively. */
const RUT_TYPES = new Set(['rut']);

/**
 * Normalizes what the integrator sent so that the same identity always
 * hashes the same: system trimmed, type lower-cased, RUT values normalized
 * and their check digit validated. Errors name fields, never values.
 */
export function normalizeIdentifiers(inputs: IdentifierInput[], now: number): NormalizedIdentifier[] {
  const errors: Array<{ field: string; reason: string }> = [];
  const seen = new Set<string>();
  const normalized = inputs.map((input, index) => {
    const system = input.system.trim();
    const type = input.type.trim().toLowerCase();
    let value = input.value.trim();
    if (RUT_TYPES.has(type)) {
      const rut = normalizeRut(value);
      if (rut === null) errors.push({ field: `identifiers[${index}].value`, reason: 'invalid_rut' });
      value = rut ?? value;
    }
    const kind = `${system}\u0000${type}`;
    if (seen.has(kind)) errors.push({ field: `identifiers[${index}]`, reason: 'duplicate_identifier_type' });
    seen.add(kind);
    if (input.verification && input.verification.verifiedAt > now) {
      errors.push({ field: `identifiers[${index}].verification.verifiedAt`, reason: 'after_receipt' });
    }
    return { system, type, value, verification: input.verification ?? null };
  });
  if (errors.length > 0) throw validationError('invalid identifiers', { errors });
  return normalized;
}

/** The string whose keyed hash identifies an identity inside a tenant. */
export function identityKey(identifier: Pick<NormalizedIdentifier, 'system' | 'type' | 'value'>): string {
  return `${identifier.system}\u0000${identifier.type}\u0000${identifier.value}`;
}
