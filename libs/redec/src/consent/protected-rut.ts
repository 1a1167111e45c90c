import { ProtectedValue, ValueProtection } from '@ledger/ledger';
/** A normalized RUT kept as a keyed hash (matching, per purpose) and a ciphertext (decrypted only where the RUT itself is needed, e.g. a report). */
export async function protectRut(protection: ValueProtection, tenantId: string, purpose: string, rut: string): Promise<ProtectedValue> {
  return { hash: await protection.hash(tenantId, purpose, rut), ciphertext: await protection.encrypt(tenantId, rut) };
}
