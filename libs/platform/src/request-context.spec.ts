import { currentContext, requireContext, runWithContext } from './request-context';

describe('request context', () => {
  it('is visible across awaits inside runWithContext and absent outside', async () => {
    expect(currentContext()).toBeUndefined();
    const seen = await runWithContext({ requestId: 'r1', correlationId: 'r1' }, async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return requireContext().requestId;
    });
    expect(seen).toBe('r1');
    expect(currentContext()).toBeUndefined();
  });

  it('keeps concurrent requests apart', async () => {
    const run = (id: string, delay: number) =>
      runWithContext({ requestId: id, correlationId: id }, async () => {
        currentContext()!.principal = { tenantId: `t-${id}`, keyId: 'k', scopes: [] };
        await new Promise((resolve) => setTimeout(resolve, delay));
        return currentContext()!.principal!.tenantId;
      });
    await expect(Promise.all([run('a', 5), run('b', 1)])).resolves.toEqual(['t-a', 't-b']);
  });

  it('requireContext fails loudly outside a request', () => {
    expect(() => requireContext()).toThrow(/no request context/);
  });
});
