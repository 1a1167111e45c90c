import type { Principal } from '@ledger/platform';

/**
 * The port the authentication guard calls; the ledger implements it (keys
 * issued by the CLI, revocation, a short cache). Resolves null for a key that
 * is unknown or revoked; throws only when it cannot tell (store unavailable).
 */
export interface ApiKeyVerifier {
  verify(apiKey: string): Promise<Principal | null>;
}

export const API_KEY_VERIFIER = Symbol('API_KEY_VERIFIER');
