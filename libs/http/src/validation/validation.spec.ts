import type { ValidationError } from '@nestjs/common';
import { toFieldErrors } from './validation';

const error = (property: string, value: unknown, constraints?: Record<string, string>, children: ValidationError[] = []): ValidationError => ({
  property,
  value,
  constraints,
  children,
});

describe('toFieldErrors', () => {
  it('flattens nested errors into full paths with array indexes', () => {
    const tree = [
      error('identifiers', [{}], undefined, [
        error('0', {}, undefined, [error('verification', {}, undefined, [error('method', 'x', { isIn: 'method must be one of x' })])]),
      ]),
    ];
    expect(toFieldErrors(tree)).toEqual([{ field: 'identifiers[0].verification.method', reason: 'invalid_value' }]);
  });

  it('says required when the value is absent, whatever the constraint', () => {
    expect(toFieldErrors([error('name', undefined, { isString: 'name must be a string' })])).toEqual([{ field: 'name', reason: 'required' }]);
  });

  it('says unknown_property for a property the DTO does not declare', () => {
    expect(toFieldErrors([error('extra', 'v', { whitelistValidation: 'property extra should not exist' })])).toEqual([
      { field: 'extra', reason: 'unknown_property' },
    ]);
  });

  it('prefers the type check when a field fails several constraints', () => {
    const failures = { maxLength: 'too long', isString: 'must be a string' };
    expect(toFieldErrors([error('name', 5, failures)])).toEqual([{ field: 'name', reason: 'must_be_string' }]);
  });

  it('derives a snake_case reason from any other constraint name, never from its message', () => {
    const result = toFieldErrors([
      error('id', 'v', { isUUID: 'id must be a UUID, got secret' }),
      error('code', 'v', { internalConsentCodeIsServerGenerated: 'secret' }),
    ]);
    expect(result).toEqual([
      { field: 'id', reason: 'is_uuid' },
      { field: 'code', reason: 'internal_consent_code_is_server_generated' },
    ]);
  });
});
