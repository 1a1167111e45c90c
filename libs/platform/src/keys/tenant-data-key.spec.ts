import { createHash, randomBytes } from 'node:crypto';
import { SLICE_BYTES } from '../slices';
import { eventLoopTurnsDuring } from '../testing';
import { SealBrokenError, deriveKey, seal, unseal } from './sealing';
import { TenantDataKey } from './tenant-data-key';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('TenantDataKey', () => {
  const key = TenantDataKey.generate('tenant-a');

  it('has an id that ciphertexts name', () => {
    expect(key.id).toMatch(/^dk_[0-9a-f]{16}$/);
    expect(key.encrypt('ana@example.cl').split('.')[1]).toBe(key.id);
  });

  it('derives the same hashes and opens the same ciphertexts from the same secret, as after an unwrap', () => {
    const again = new TenantDataKey('tenant-a', key.id, key.exportSecret());
    expect(again.hash('identifier', '12345678-5')).toBe(key.hash('identifier', '12345678-5'));
    expect(again.decrypt(key.encrypt('ana@example.cl'))).toBe('ana@example.cl');
  });

  it('refuses a ciphertext of another data key, even of the same tenant', () => {
    const other = TenantDataKey.generate('tenant-a');
    expect(() => key.decrypt(other.encrypt('x'))).toThrow(new SealBrokenError(`sealed under data key ${other.id}, not under this tenant's ${key.id}`));
  });

  describe('blob envelopes', () => {
    const bytes = Buffer.concat([Buffer.from('%PDF-1.4 certificado ñ '), randomBytes(4096)]);
    const name = sha256(bytes);
    let envelope: Buffer;
    beforeAll(async () => {
      envelope = await key.sealBlob(name, bytes);
    });

    it('hold neither the bytes nor any long run of them, and name the data key', async () => {
      expect(envelope.includes(bytes.subarray(0, 16))).toBe(false);
      expect(envelope.includes(bytes.subarray(1000, 1016))).toBe(false);
      expect(envelope.subarray(0, 4).toString('ascii')).toBe('LDGB');
      expect(envelope.includes(Buffer.from(key.id, 'ascii'))).toBe(true);
      expect(await key.openBlob(name, envelope)).toEqual(bytes);
    });

    it('use a fresh nonce each time', async () => {
      expect((await key.sealBlob(name, bytes)).equals(envelope)).toBe(false);
    });

    it('do not open under another name, tenant or key, altered, or truncated', async () => {
      const altered = Buffer.from(envelope);
      altered[altered.length - 1] ^= 1;
      const otherTenant = new TenantDataKey('tenant-b', key.id, key.exportSecret());
      for (const open of [
        () => key.openBlob(sha256(Buffer.from('other')), envelope),
        () => otherTenant.openBlob(name, envelope),
        () => TenantDataKey.generate('tenant-a').openBlob(name, envelope),
        () => key.openBlob(name, altered),
        () => key.openBlob(name, envelope.subarray(0, 30)),
        () => key.openBlob(name, bytes),
      ]) {
        await expect(open()).rejects.toThrow(SealBrokenError);
      }
    });

    // Sealed and opened a slice at a time: the layout is still the one blobs stored before have.
    describe('larger than a slice', () => {
      const recording = randomBytes(2 * SLICE_BYTES + 12_345);
      const recordingName = sha256(recording);
      const blobKey = () => deriveKey(key.exportSecret(), 'consent-ledger/tenant-data-key', ['blob', 'tenant-a']);
      const context = JSON.stringify(['blob', 'tenant-a', recordingName]);
      const header = Buffer.concat([Buffer.from('LDGB'), Buffer.from([1, key.id.length]), Buffer.from(key.id, 'ascii')]);

      it('lay out magic, format, key id, nonce, tag and ciphertext, as one AES-256-GCM seal of the whole', async () => {
        const sealed = await key.sealBlob(recordingName, recording);
        expect(sealed.subarray(0, header.length)).toEqual(header);
        const at = header.length;
        const whole = { iv: sealed.subarray(at, at + 12), tag: sealed.subarray(at + 12, at + 28), ciphertext: sealed.subarray(at + 28) };
        expect(unseal(blobKey(), context, whole)).toEqual(recording);
      });

      it('open what one seal of the whole laid out, and nothing once a byte of a later slice is altered', async () => {
        const { iv, tag, ciphertext } = seal(blobKey(), context, recording);
        const laidOut = Buffer.concat([header, iv, tag, ciphertext]);
        expect(await key.openBlob(recordingName, laidOut)).toEqual(recording);
        laidOut[laidOut.length - SLICE_BYTES / 2] ^= 1;
        await expect(key.openBlob(recordingName, laidOut)).rejects.toThrow(SealBrokenError);
      });

      it('seal and open without holding the event loop from start to end', async () => {
        let sealed: Buffer = Buffer.alloc(0);
        expect(await eventLoopTurnsDuring(async () => (sealed = await key.sealBlob(recordingName, recording)))).toBeGreaterThanOrEqual(2);
        expect(await eventLoopTurnsDuring(() => key.openBlob(recordingName, sealed))).toBeGreaterThanOrEqual(2);
      });
    });
  });
});
