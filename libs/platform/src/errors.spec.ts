import { DomainError, ErrorCodes, conflict, notFound, validationError } from './errors';

describe('DomainError constructors', () => {
  it('builds a validation error with its reason and field errors', () => {
    const error = validationError('Grant is invalid.', {
      reason: 'internal_consent_code_is_server_generated',
      errors: [{ field: 'internalConsentCode', reason: 'unknown_property' }],
    });
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({
      kind: 'validation',
      code: ErrorCodes.VALIDATION_ERROR,
      detail: 'Grant is invalid.',
      message: 'Grant is invalid.',
      reason: 'internal_consent_code_is_server_generated',
      errors: [{ field: 'internalConsentCode', reason: 'unknown_property' }],
    });
  });

  it('names the kind of thing not found, never an id', () => {
    expect(notFound('consent')).toMatchObject({ kind: 'not_found', code: 'NOT_FOUND', detail: 'No such consent.' });
  });

  it('keeps a domain-specific code as given', () => {
    const error = conflict('redec_consent_not_revoked', 'The consent is not revoked.');
    expect(error).toMatchObject({ kind: 'conflict', code: 'redec_consent_not_revoked', reason: undefined, errors: undefined });
  });
});
