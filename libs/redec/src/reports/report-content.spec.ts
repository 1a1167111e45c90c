import { sha256Hex } from '@ledger/platform';
import { TenantDataKey } from '@ledger/platform';
import { ReportRendered } from './report.events';
import { contentBlobOf, contentSha256Of, openReportContent, protectReportContent } from './report-content';

const file = Buffer.from('0000000042RDC3020261121\r\nA1B2C3D4E5F6G7H8I9J0202611161200000123456785\r\n', 'ascii');
const described = { reportId: 'rep-1', kind: 'rdc30' as const, periodStart: 0, periodEnd: 1, layoutVersion: 'v', size: file.length, records: 1, metadata: {}, renderedAt: 2 };

/** The ReportRendered a render records for `file` under `key`, as completeReport builds it. */
async function renderedUnder(key: TenantDataKey, reportId = 'rep-1'): Promise<{ fact: ReportRendered['data']; sealed: Buffer }> {
  const { sealed, protectedContentSha256 } = await protectReportContent(key, reportId, file);
  return { fact: { ...described, reportId, protectedContentSha256, contentBlob: sha256Hex(sealed) }, sealed };
}

// Decision 0045: what a report keeps of its file says nothing of the file's hash without the report's key.
describe("a report's stored content", () => {
  const key = TenantDataKey.generate('tenant-1', 'rk');
  const hash = sha256Hex(file);

  it('opens with the report key to the exact file, whose hash the fact gives under that key only', async () => {
    const { fact, sealed } = await renderedUnder(key);
    expect(await openReportContent(fact, key, sealed)).toEqual({ content: file, contentSha256: hash });
    expect(contentSha256Of(fact, key)).toBe(hash);
    expect(contentBlobOf(fact)).toBe(sha256Hex(sealed));
  });

  it('holds no form of the hash, of a line or of the RUT in what is stored, and differs at every rendering', async () => {
    const { fact, sealed } = await renderedUnder(key);
    const digest = Buffer.from(hash, 'hex');
    const stored = Buffer.concat([sealed, Buffer.from(JSON.stringify(fact))]);
    for (const form of [hash, digest, digest.toString('base64'), digest.toString('base64url'), '0123456785', 'RDC30']) expect(stored.includes(form)).toBe(false);
    const again = await renderedUnder(key);
    expect(again.fact.protectedContentSha256).not.toBe(fact.protectedContentSha256);
    expect(again.fact.contentBlob).not.toBe(fact.contentBlob);
  });

  it('tells no hash once the key is destroyed, and refuses to open what another key, another report or other bytes give', async () => {
    const { fact, sealed } = await renderedUnder(key);
    expect(contentSha256Of(fact, null)).toBeNull();
    await expect(openReportContent(fact, null, sealed)).rejects.toThrow(/destroyed/);
    await expect(openReportContent(fact, TenantDataKey.generate('tenant-1', 'rk'), sealed)).rejects.toThrow();
    const other = await renderedUnder(key, 'rep-2');
    await expect(openReportContent(fact, key, other.sealed)).rejects.toThrow();
    // The same report's key over other bytes (a file swapped under the fact's hash) does not pass for the file.
    const swapped = await key.sealBlob('rep-1', Buffer.from('other bytes'));
    await expect(openReportContent(fact, key, swapped)).rejects.toThrow(/does not hash/);
  });

  it('reads a fact recorded before decision 0045 as it was: the plain hash names the file and its blob', async () => {
    const legacy: ReportRendered['data'] = { ...described, contentSha256: hash };
    expect(contentSha256Of(legacy, null)).toBe(hash);
    expect(contentBlobOf(legacy)).toBe(hash);
    expect(await openReportContent(legacy, null, file)).toEqual({ content: file, contentSha256: hash });
    await expect(openReportContent(legacy, null, Buffer.from('other bytes'))).rejects.toThrow(/does not hash/);
  });
});
