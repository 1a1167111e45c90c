export { logIdentity, type LogIdentity } from './log-identity';
export { consistencyProof, hashTile, inclusionProof, rootAt } from './proofs';
export { cosignedNote, issueCheckpoint } from './checkpoints';
export { auditBundle, verifyAuditBundle, type AuditBundle, type BundledEvent, type BundleVerification, type WitnessCheck } from './audit-bundle';
export { LogAudit, openCheckpoint, type LogMismatch, type LogMismatchReason, type LogVerification } from './verify-log';
export { witnessCheck, witnessCheckpoint, type WitnessOutcome } from './witnessing';
