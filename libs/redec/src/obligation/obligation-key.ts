import { sha256Hex } from '@ledger/platform';

/**
 * An obligation is named by two free-text values; they are hashed with a NUL
 * between them so that no two pairs run together into one name, and so the
 * name is short and plain wherever it is used (stream, read-model id).
 */
export function obligationKey(sourceSystem: string, obligationReference: string): string {
  return sha256Hex(`${sourceSystem}\u0000${obligationReference}`);
}
