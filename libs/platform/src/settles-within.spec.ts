import { settlesWithin } from './settles-within';

describe('settlesWithin', () => {
  it('is true for a promise that resolves or rejects within the bound', async () => {
    expect(await settlesWithin(Promise.resolve('x'), 1_000)).toBe(true);
    expect(await settlesWithin(Promise.reject(new Error('x')), 1_000)).toBe(true);
  });

  it('is false for a promise still pending at the bound', async () => {
    expect(await settlesWithin(new Promise(() => undefined), 10)).toBe(false);
  });
});
