import { randomBytes, randomUUID } from 'node:crypto';
import { masterKeys } from '@ledger/platform';
import { PageReferences, consentPagePath } from './page-reference';

const address = { tenantId: randomUUID(), sessionId: randomUUID() };

describe('PageReferences', () => {
  const current = randomBytes(32);
  const references = new PageReferences(masterKeys(current));

  it('names the page without showing whose it is, and opens to the same address', () => {
    const reference = references.referenceOf(address);
    expect(reference).toMatch(/^[A-Za-z0-9_-]+$/);
    for (const part of [address.tenantId, address.sessionId, ...address.tenantId.split('-'), ...address.sessionId.split('-')]) expect(reference).not.toContain(part);
    expect(references.open(reference)).toEqual(address);
    expect(consentPagePath(reference)).toBe(`/embed/pages/${reference}`);
  });

  it('gives another reference each time, every one opening to the address', () => {
    const [a, b] = [references.referenceOf(address), references.referenceOf(address)];
    expect(a).not.toBe(b);
    expect([references.open(a), references.open(b)]).toEqual([address, address]);
  });

  it('opens nothing altered, truncated, made up or sealed by another deployment', () => {
    const reference = references.referenceOf(address);
    const flipped = Buffer.from(reference, 'base64url');
    flipped[flipped.length - 1] ^= 1;
    expect(references.open(flipped.toString('base64url'))).toBeNull();
    expect(references.open(reference.slice(0, -4))).toBeNull();
    expect(references.open('')).toBeNull();
    expect(references.open('not/a reference')).toBeNull();
    expect(references.open(randomBytes(60).toString('base64url'))).toBeNull();
    expect(new PageReferences(masterKeys(randomBytes(32))).open(reference)).toBeNull();
  });

  it('still opens a reference made before the master key was replaced, while the old key is kept', () => {
    const reference = references.referenceOf(address);
    expect(new PageReferences(masterKeys(randomBytes(32), [current])).open(reference)).toEqual(address);
  });
});
