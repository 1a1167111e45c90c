import { readFileSync } from 'node:fs';
import type { EventStore, LedgerLog } from '@ledger/event-store';
import { cosignedNote, issueCheckpoint, verifyAuditBundle, witnessCheck } from '@ledger/ledger-log';
import { NoteError, cosignatureVerifier, noteVerifier } from '@ledger/transparency';
import { InvalidArgumentError } from 'commander';
import { CommandError } from './cli-error';
import { CliOutput } from './cli-output';
import type { CliCommand } from './commands';

/**
 * The verifiable ledger from the command line (decision 0058): the log's
 * checkpoint and verifier key, and an audit bundle checked offline. `audit
 * verify` checks the tree with the chains (commands.ts).
 */
export const ledgerLogCommands: Record<string, CliCommand> = {
  'log checkpoint': {
    description: "issue a checkpoint of the ledger's Merkle tree if it grew since the latest, and print the latest (with witnesses' cosignatures)",
    options: [],
    run: async (_o, d) => {
      const log = logOf(d.store);
      const checkpoint = await issueCheckpoint(log, d.logIdentity(), d.clock.now());
      return { checkpoint: await cosignedNote(log, checkpoint), size: checkpoint.size, root: checkpoint.root.toString('base64') };
    },
  },
  'log verifier-key': {
    description: "print the verifier key of the log's signing key (LEDGER_LOG_SIGNING_KEY), which an auditor keeps to check checkpoints",
    options: [],
    run: async (_o, d) => ({ verifierKey: d.logIdentity().verifierKey }),
  },
  'audit verify-bundle': {
    description: "check a consent's audit bundle offline, against the log's verifier key (and witnesses' keys) you trust; exit status 1 when not valid",
    options: [
      { flags: '--file <FILE>', description: 'the bundle, as GET /v1/redec/consents/{id}/audit-bundle answered it', required: true },
      { flags: '--vkey <VERIFIER_KEY>', description: "the log's verifier key, as you hold it (not the bundle's copy)", required: true, parse: verifierKeyOf(noteVerifier) },
      {
        flags: '--witness-vkey <VERIFIER_KEY>',
        description: "a witness's cosignature verifier key: the checkpoint must carry its cosignature; repeat for each witness",
        repeatable: true,
        parse: verifierKeyOf(cosignatureVerifier),
      },
    ],
    opensLedger: false,
    run: async (o) => {
      let bundle: unknown;
      try {
        bundle = JSON.parse(readFileSync(o.file, 'utf8'));
      } catch (error) {
        throw new CommandError('BUNDLE_UNREADABLE', `the bundle file could not be read as JSON: ${error instanceof Error ? error.message : String(error)}`);
      }
      const witnesses: string[] = o.witnessVkey ?? [];
      const result = verifyAuditBundle(bundle, { verifierKey: o.vkey, witnesses: witnesses.map(witnessCheck) });
      return CliOutput.json(result, result.valid ? 0 : 1);
    },
  },
};

/** The store's log; a store without one (EventStoreDB) has no tree to check or certify. */
export function logOf(store: EventStore): LedgerLog {
  if (store.log === undefined) throw new CommandError('NO_LEDGER_LOG', 'this event store keeps no Merkle tree (only the SQLite and PostgreSQL stores do)');
  return store.log;
}

/** An option holding a verifier key of the kind `read` accepts. */
function verifierKeyOf(read: (vkey: string) => unknown): (value: string) => string {
  return (value) => {
    try {
      read(value);
    } catch (error) {
      if (error instanceof NoteError) throw new InvalidArgumentError(`is not a verifier key of that kind: ${error.message}`);
      throw error;
    }
    return value;
  };
}
