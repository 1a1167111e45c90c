import { DomainError } from '@ledger/platform';
import { identityKey, normalizeIdentifiers } from './identifier-input';

const now = 1_763_800_000_000;

describe('identifier normalization', () => {
  it('normalizes RUT values, trims systems and lower-cases types so one identity hashes one way', () => {
    const [a] = normalizeIdentifiers([{ system: ' cl-sii ', type: 'RUT', value: '12.345.678-5' }], now);
    const [b] = normalizeIdentifiers([{ system: 'cl-sii', type: 'rut', value: '123456785' }], now);
    expect(a).toEqual({ system: 'cl-sii', type: 'rut', value: '12345678-5', verification: null });
    expect(identityKey(a)).toBe(identityKey(b));
  });

  it('reports each bad field without echoing the value', () => {
    let error: DomainError | undefined;
    try {
      normalizeIdentifiers(
        [
          { system: 's', type: 'rut', value: '12.345.678-9' },
          { system: 's', type: 'RUT', value: '11.111.111-1' },
          { system: 'x', type: 'email', value: 'a@b.c', verification: { method: 'm', sourceReference: 'r', verifiedAt: now + 1 } },
        ],
        now,
      );
    } catch (e) {
      error = e as DomainError;
    }
    expect(error?.code).toBe('VALIDATION_ERROR');
    expect(error?.errors).toEqual([
      { field: 'identifiers[0].value', reason: 'invalid_rut' },
      { field: 'identifiers[1]', reason: 'duplicate_identifier_type' },
      { field: 'identifiers[2].verification.verifiedAt', reason: 'after_receipt' },
    ]);
    expect(JSON.stringify(error)).not.toContain('12.345.678-9');
  });
});
