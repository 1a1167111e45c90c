import type { RecordedEvent } from '@ledger/event-store';
import type { TenantEvent } from '@ledger/ledger';
import { certificateBankAt } from './certificate-facts';

const presentation = (displayName: string, objective: string) => ({
  institutionCode: null,
  weeklyReports: false,
  dailyRightsReport: false,
  scheduledErasure: false,
  presentation: { displayName, logo: null, accentColor: '#0b3d91', terms: { objective: { '02': objective } } },
});

/** The tenant's facts at these positions, as the store returns them. */
function facts(...events: Array<[number, TenantEvent]>): RecordedEvent[] {
  return events.map(([position, event], revision) => ({ ...event, position, revision, streamId: 'tenant-t1', id: `e${position}`, metadata: {} }) as unknown as RecordedEvent);
}

const created: TenantEvent = { type: 'TenantCreated', data: { tenantId: 't1', name: 'Banco de Prueba S.A.', createdAt: 1 } };
const first: TenantEvent = { type: 'TenantSettingsChanged', data: { tenantId: 't1', settings: presentation('Banco Ejemplo', 'Crédito nuevo'), changedAt: 2 } };
const later: TenantEvent = { type: 'TenantSettingsChanged', data: { tenantId: 't1', settings: presentation('Banco Ejemplo Renovado', 'Otra cosa'), changedAt: 3 } };

describe('certificateBankAt', () => {
  it('takes the presentation in force before the grant, whatever the bank set after it', () => {
    const bank = certificateBankAt(facts([10, created], [20, first], [40, later]), 30);
    expect(bank.displayName).toBe('Banco Ejemplo');
    expect(bank.terms.meaningOf('objective', '02')).toBe('Crédito nuevo');
  });

  it("names the bank by its tenant's name, with only the service's own words, before any presentation", () => {
    const bank = certificateBankAt(facts([10, created], [40, first]), 30);
    expect(bank.displayName).toBe('Banco de Prueba S.A.');
    expect(bank.terms.meaningOf('objective', '02')).toBeNull();
    expect(bank.terms.meaningOf('channel', 'digital')).toBe('En línea');
  });
});
