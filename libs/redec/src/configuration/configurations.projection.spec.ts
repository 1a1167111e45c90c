import type { RecordedEvent } from '@ledger/event-store';
import { configurationsProjection } from './configurations.projection';
import { publishedVersion } from './published-version.fixture';

const data = publishedVersion('cfg-1', 1);
const recorded = (type: string, tenantId: string | null = 't1'): RecordedEvent =>
  ({ id: 'e1', type, data, metadata: { tenantId: tenantId ?? undefined, correlationId: 'c', recordedAt: 1, schemaVersion: 1 }, streamId: 's', revision: 0, position: 1, created: 1, integrity: { hash: 'h', previousHash: null } }) as RecordedEvent;

describe('configurations projection', () => {
  it('keeps each published version under its tenant and id, findable by template', () => {
    const event = recorded('ConfigurationPublished');
    expect(configurationsProjection.route(event)).toEqual(['t1:cfg-1']);
    const document = configurationsProjection.evolve(null, event)!;
    expect(document).toEqual({ tenantId: 't1', ...data });
    expect(configurationsProjection.indexes!(document)).toEqual([{ index: 'template', value: 't1:redec-credit-evaluation' }]);
  });

  it('reads a version published before embed terms and grace periods as having none', () => {
    const { embed: _embed, gracePeriodDays: _grace, ...earlier } = data;
    const event = { ...recorded('ConfigurationPublished'), data: earlier };
    expect(configurationsProjection.evolve(null, event)).toEqual({ tenantId: 't1', ...data, embed: null, gracePeriodDays: 0 });
  });

  it('ignores other facts and facts without a tenant', () => {
    expect(configurationsProjection.route(recorded('CustomerRegistered'))).toEqual([]);
    expect(configurationsProjection.route(recorded('ConfigurationPublished', null))).toEqual([]);
  });
});
