import { randomBytes, randomUUID } from 'node:crypto';
import { masterKeys } from '@ledger/platform';
import { PageReferences, pagePath } from './page-reference';

const address = { tenantId: randomUUID(), sessionId: randomUUID() };

describe('PageReferences', () => {
  const current = randomBytes(32);
  const references = new PageReferences(masterKeys(current));

  it('names the page without showing whose it is, and opens to the same address', () => {
    const reference = references.referenceOf('consent-page', address);
    expect(reference).toMatch(/^[A-Za-z0-9_-]+$/);
    for (const part of [address.tenantId, address.sessionId, ...address.tenantId.split('-'), ...address.sessionId.split('-')]) expect(reference).not.toContain(part);
    expect(references.open('consent-page', reference)).toEqual(address);
    expect(pagePath('consent-page', reference)).toBe(`/embed/pages/${reference}`);
  });

  it('gives another reference each time, every one opening to the address', () => {
    const [a, b] = [references.referenceOf('consent-page', address), references.referenceOf('consent-page', address)];
    expect(a).not.toBe(b);
    expect([references.open('consent-page', a), references.open('consent-page', b)]).toEqual([address, address]);
  });

  it('opens nothing altered, truncated, made up or sealed by another deployment', () => {
    const reference = references.referenceOf('consent-page', address);
    const flipped = Buffer.from(reference, 'base64url');
    flipped[flipped.length - 1] ^= 1;
    expect(references.open('consent-page', flipped.toString('base64url'))).toBeNull();
    expect(references.open('consent-page', reference.slice(0, -4))).toBeNull();
    expect(references.open('consent-page', '')).toBeNull();
    expect(references.open('consent-page', 'not/a reference')).toBeNull();
    expect(references.open('consent-page', randomBytes(60).toString('base64url'))).toBeNull();
    expect(new PageReferences(masterKeys(randomBytes(32))).open('consent-page', reference)).toBeNull();
  });

  it("never opens one page's reference as another's", () => {
    const privacyCenter = references.referenceOf('privacy-center', address);
    expect(references.open('consent-page', privacyCenter)).toBeNull();
    expect(references.open('privacy-center', references.referenceOf('consent-page', address))).toBeNull();
    expect(references.open('privacy-center', privacyCenter)).toEqual(address);
    expect(pagePath('privacy-center', privacyCenter)).toBe(`/privacy-center/pages/${privacyCenter}`);
  });

  it('still opens a reference made before the master key was replaced, while the old key is kept', () => {
    const reference = references.referenceOf('consent-page', address);
    expect(new PageReferences(masterKeys(randomBytes(32), [current])).open('consent-page', reference)).toEqual(address);
  });
});
