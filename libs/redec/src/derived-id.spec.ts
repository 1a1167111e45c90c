import { derivedUuid } from './derived-id';
import { redecConsentIdFor } from './interaction/grant-consent';

describe('derived ids', () => {
  it('are UUID-shaped (version 8, RFC variant), stable, and differ when any part differs', () => {
    const id = derivedUuid('redec-access', 'tenant-1', 'origination', 'req-1');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(derivedUuid('redec-access', 'tenant-1', 'origination', 'req-1')).toBe(id);
    expect(derivedUuid('redec-access', 'tenant-2', 'origination', 'req-1')).not.toBe(id);
    // The separator keeps part boundaries: ("ab", "c") is not ("a", "bc").
    expect(derivedUuid('redec-access', 'tenant-1', 'originatio', 'nreq-1')).not.toBe(id);
  });

  it('keep the consent ids already recorded: a grant retried after an upgrade finds its stream', () => {
    expect(redecConsentIdFor('t1', 'i1')).toBe('0b9d29a5-cf31-8900-9ba1-4ece6b68ecd8');
  });
});
