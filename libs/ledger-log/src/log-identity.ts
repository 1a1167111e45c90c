import { NoteVerifier, ed25519Signer, noteVerifier } from '@ledger/transparency';

/** Who signs the ledger's checkpoints, and the keys a reader trusts for those signed before a rotation. */
export interface LogIdentity {
  origin: string;
  /** Signs new checkpoints: an Ed25519 key named after the origin, as tlog-checkpoint asks. */
  signer: ReturnType<typeof ed25519Signer>;
  /** The signer's verifier key (C2SP vkey). */
  verifierKey: string;
  /** The current verifier and those of keys rotated out (LEDGER_LOG_PREVIOUS_VERIFIER_KEYS). */
  verifiers: NoteVerifier[];
}

export function logIdentity({ origin, signingKey, previousVerifierKeys = [] }: { origin: string; signingKey: Buffer; previousVerifierKeys?: readonly string[] }): LogIdentity {
  const signer = ed25519Signer(origin, signingKey);
  const previous = previousVerifierKeys.map((vkey) => {
    const verifier = noteVerifier(vkey);
    if (verifier.name !== origin) throw new Error(`a previous verifier key is named ${verifier.name}, not the log's origin ${origin}`);
    return verifier;
  });
  return { origin, signer, verifierKey: signer.verifierKey, verifiers: [noteVerifier(signer.verifierKey), ...previous] };
}
