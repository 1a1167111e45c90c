import { derivedUuid, joinedIdentity } from './derived-id';
import { obligationKey } from './obligation/obligation-key';
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

  it('keep the obligation keys already recorded', () => {
    expect(obligationKey('core-loans', 'op-1')).toBe(obligationKey('core-loans', 'op-1'));
    expect(joinedIdentity('core-loans', 'op-1')).toBe('core-loans\u0000op-1');
  });

  // Issue 32: ("core\0x", "y") and ("core", "x\0y") were one obligation to the lookup and to authorize's conflict check.
  it('never give two different pairs one identity: a NUL that would move a boundary is refused', () => {
    expect(() => obligationKey('core\u0000x', 'y')).toThrow(/contains NUL/);
    expect(() => derivedUuid('redec-access', 'tenant-1', 'core\u0000x', 'y')).toThrow(/contains NUL/);
    // A NUL in the last part moves no boundary: such a reference, recorded before the edge refused it, keeps its key.
    expect(obligationKey('core', 'x\u0000y')).toMatch(/^[0-9a-f]{64}$/);
    const alphabet = ['', 'a', 'b', '\u0000', '\u0001', 'a\u0000', '\u0000b'];
    const texts = alphabet.flatMap((x) => alphabet.map((y) => x + y));
    const seen = new Map<string, string>();
    for (const first of texts) {
      for (const second of texts) {
        let key: string;
        try {
          key = obligationKey(first, second);
        } catch {
          continue;
        }
        const pair = JSON.stringify([first, second]);
        expect(seen.get(key) ?? pair).toBe(pair);
        seen.set(key, pair);
      }
    }
    expect(seen.size).toBeGreaterThan(100);
  });
});
