import { isSameCustomerId } from './customer-id';

describe('customer ids as callers send them', () => {
  const issued = '3f2b8c1e-7d4a-4e2b-9c1d-5a6b7c8d9e0f';

  it('match the issued id exactly, and a UUID in any case', () => {
    expect(isSameCustomerId(issued, issued)).toBe(true);
    expect(isSameCustomerId(issued.toUpperCase(), issued)).toBe(true);
    expect(isSameCustomerId('3F2B8C1E-7d4a-4E2B-9c1d-5A6B7C8D9E0F', issued)).toBe(true);
  });

  it('do not match another id, or the issued one with anything around it', () => {
    expect(isSameCustomerId('3f2b8c1e-7d4a-4e2b-9c1d-5a6b7c8d9e00', issued)).toBe(false);
    expect(isSameCustomerId(` ${issued}`, issued)).toBe(false);
    expect(isSameCustomerId(`${issued.toUpperCase()}x`, issued)).toBe(false);
  });
});
