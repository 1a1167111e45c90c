import { sha256Hex } from '@ledger/platform';
import { joinedIdentity } from '../derived-id';

/**
 * An obligation is named by two free-text values; they are hashed joined by
 * joinedIdentity (a NUL between them, none in the source system), so that no
 * two pairs run together into one name, and so the name is short and plain
 * wherever it is used (stream, read-model id).
 */
export function obligationKey(sourceSystem: string, obligationReference: string): string {
  return sha256Hex(joinedIdentity(sourceSystem, obligationReference));
}
