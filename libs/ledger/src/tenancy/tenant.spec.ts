import { DomainError } from '@ledger/platform';
import { decideCreateTenant } from './tenant';

describe('tenants', () => {
  it('creates a tenant with a trimmed name', () => {
    expect(decideCreateTenant('t1', '  Banco Uno ', 5)).toEqual([{ type: 'TenantCreated', data: { tenantId: 't1', name: 'Banco Uno', createdAt: 5 } }]);
  });

  it.each(['', '   ', 'x'.repeat(201)])('refuses the name %j', (name) => {
    expect(() => decideCreateTenant('t1', name, 5)).toThrow(DomainError);
  });
});
