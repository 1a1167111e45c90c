import { randomUUID } from 'node:crypto';
import { EventStore } from '@ledger/event-store';
import { Clock, ConfigError, MasterKeys, TenantDataKey, TenantKeySource, WrappedDataKey, notFound, unwrapDataKey, wrapDataKey } from '@ledger/platform';
import { CommandContext } from '../command-context';
import { AggregateCache, loadAggregate } from '../load-aggregate';
import { Decision, runCommand } from '../run-command';
import { streams } from '../streams';

/** A tenant's data key came to be, wrapped under the master key of the process that needed it first. */
export interface TenantDataKeyCreated {
  type: 'TenantDataKeyCreated';
  data: { tenantId: string; dataKeyId: string; masterKeyId: string; wrappedKey: string; createdAt: number };
}

/** `ledger keys rotate`: the same data key, wrapped again under the new master key. */
export interface TenantDataKeyRewrapped {
  type: 'TenantDataKeyRewrapped';
  data: { tenantId: string; dataKeyId: string; masterKeyId: string; wrappedKey: string; previousMasterKeyId: string; rewrappedAt: number };
}

export type KeyringEvent = TenantDataKeyCreated | TenantDataKeyRewrapped;

/** One tenant's data key as the keyring holds it: its id and every wrapping, oldest first. */
export interface KeyringEntry {
  tenantId: string;
  dataKeyId: string;
  wrappings: WrappedDataKey[];
}

/** By tenant id. */
export type Keyring = ReadonlyMap<string, KeyringEntry>;

export function evolveKeyring(keyring: Keyring, event: KeyringEvent): Keyring {
  const { tenantId, dataKeyId, masterKeyId, wrappedKey } = event.data;
  switch (event.type) {
    case 'TenantDataKeyCreated':
      return new Map(keyring).set(tenantId, { tenantId, dataKeyId, wrappings: [{ masterKeyId, wrappedKey }] });
    case 'TenantDataKeyRewrapped': {
      const entry = keyring.get(tenantId);
      if (!entry) return keyring;
      return new Map(keyring).set(tenantId, { ...entry, wrappings: [...entry.wrappings, { masterKeyId, wrappedKey }] });
    }
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}

/** The keyring stream folded; null before its first fact. */
function foldKeyring(keyring: Keyring | null, event: KeyringEvent): Keyring {
  return evolveKeyring(keyring ?? new Map(), event);
}

/** A tenant without a data key gets this one, wrapped under the current master key; a tenant that has one keeps it. */
export function decideCreateDataKey(keyring: Keyring, dataKey: TenantDataKey, keys: MasterKeys, now: number): TenantDataKeyCreated[] {
  if (keyring.has(dataKey.tenantId)) return [];
  const wrapped = wrapDataKey(keys.current, dataKey.tenantId, dataKey.id, dataKey.exportSecret());
  return [{ type: 'TenantDataKeyCreated', data: { tenantId: dataKey.tenantId, dataKeyId: dataKey.id, ...wrapped, createdAt: now } }];
}

/**
 * Every data key whose newest wrapping is not under the current master key
 * is wrapped again under it. All or nothing: one key that no held master key
 * unwraps refuses the whole rotation.
 */
export function decideRewrap(keyring: Keyring, keys: MasterKeys, now: number): TenantDataKeyRewrapped[] {
  const stale = [...keyring.values()].filter((entry) => entry.wrappings[entry.wrappings.length - 1].masterKeyId !== keys.current.id);
  assertUnwrappable(stale, keys);
  return stale.map((entry) => ({
    type: 'TenantDataKeyRewrapped',
    data: {
      tenantId: entry.tenantId,
      dataKeyId: entry.dataKeyId,
      ...wrapDataKey(keys.current, entry.tenantId, entry.dataKeyId, unwrapDataKey(keys, entry.tenantId, entry.dataKeyId, entry.wrappings)!),
      previousMasterKeyId: entry.wrappings[entry.wrappings.length - 1].masterKeyId,
      rewrappedAt: now,
    },
  }));
}

function assertUnwrappable(entries: readonly KeyringEntry[], keys: MasterKeys): void {
  const held = new Set([keys.current, ...keys.previous].map((key) => key.id));
  const lacking = entries.filter((entry) => !entry.wrappings.some((w) => held.has(w.masterKeyId)));
  if (lacking.length === 0) return;
  const needed = [...new Set(lacking.flatMap((entry) => entry.wrappings.map((w) => w.masterKeyId)))];
  throw new ConfigError(
    `${lacking.length} tenant data key(s) are wrapped only under master key(s) ${needed.join(', ')}; this process holds ${[...held].join(', ')}. ` +
      'Set the master key that wrapped them as LEDGER_MASTER_KEY, or, during a rotation, in LEDGER_PREVIOUS_MASTER_KEYS (decision 0028).',
  );
}

/**
 * Every command on the keyring appends to its one stream, so a lost race is
 * always another tenant's key (or a rotation) recorded: a first use waits
 * behind at most as many as run at once.
 */
const KEYRING_ATTEMPTS = 20;

/**
 * The tenants' data keys, read from the keyring stream and unwrapped with the
 * master keys this process holds, each kept in memory once unwrapped (a
 * rotation re-wraps a key but never changes it). A tenant's key is created
 * the first time one is needed, through the one command path: the append at
 * the keyring's revision lets one process win when two create at once, and
 * the other then reads the winner's.
 */
export class TenantKeyring implements TenantKeySource {
  /** The keyring as last read: each read folds only what was recorded since. */
  private readonly folded = new AggregateCache<Keyring>(1);
  private readonly unwrapped = new Map<string, TenantDataKey>();
  /** One load per tenant at a time, so a burst of first requests creates one key. */
  private readonly loading = new Map<string, Promise<TenantDataKey>>();

  private constructor(
    private readonly store: EventStore,
    private readonly keys: MasterKeys,
    private readonly clock: Clock,
  ) {}

  /**
   * Reads the keyring and checks that every data key in it unwraps: a
   * process started with a wrong master key, or without the previous one
   * before the rotation was run, fails here, naming the master keys it lacks,
   * rather than on some later request.
   */
  static async open(store: EventStore, keys: MasterKeys, clock: Clock): Promise<TenantKeyring> {
    const keyring = new TenantKeyring(store, keys, clock);
    const { state } = await loadAggregate(store, streams.keyring(), foldKeyring, keyring.folded);
    assertUnwrappable([...(state ?? new Map<string, KeyringEntry>()).values()], keys);
    return keyring;
  }

  dataKey(tenantId: string): Promise<TenantDataKey> {
    const known = this.unwrapped.get(tenantId);
    if (known) return Promise.resolve(known);
    let loading = this.loading.get(tenantId);
    if (!loading) {
      loading = this.load(tenantId).finally(() => this.loading.delete(tenantId));
      this.loading.set(tenantId, loading);
    }
    return loading;
  }

  private async load(tenantId: string): Promise<TenantDataKey> {
    const dataKey = TenantDataKey.generate(tenantId);
    // No tenantId in the metadata: the keyring is the ledger's, not a tenant's stream (see streams.keyring).
    const context: CommandContext = { actor: 'service:keyring', correlationId: randomUUID(), now: this.clock.now() };
    const { result } = await runCommand(
      this.store,
      context,
      async (reads): Promise<Decision<TenantDataKey>> => {
        const keyring = (await reads.fold(streams.keyring(), foldKeyring, this.folded)) ?? new Map<string, KeyringEntry>();
        const entry = keyring.get(tenantId);
        if (entry) return { answer: this.unwrap(entry), position: null };
        // Only a tenant that exists gets a key: tenant ids reach here from keys and recorded facts, but a guess must not grow the keyring.
        // Its first fact is read outside the guard: a tenant, once created, stays, so no concurrent command can make this check stale.
        if ((await this.store.readStream(streams.tenant(tenantId), { maxCount: 1 })).length === 0) throw notFound('tenant');
        return { record: { streamId: streams.keyring(), facts: decideCreateDataKey(keyring, dataKey, this.keys, context.now) }, answer: dataKey };
      },
      { attempts: KEYRING_ATTEMPTS },
    );
    this.unwrapped.set(tenantId, result);
    return result;
  }

  private unwrap(entry: KeyringEntry): TenantDataKey {
    assertUnwrappable([entry], this.keys);
    return new TenantDataKey(entry.tenantId, entry.dataKeyId, unwrapDataKey(this.keys, entry.tenantId, entry.dataKeyId, entry.wrappings)!);
  }
}

/** What `ledger keys rotate` prints. */
export interface MasterKeyRotation {
  masterKeyId: string;
  /** The master keys the re-wrapped data keys were last wrapped under. */
  previousMasterKeyIds: string[];
  tenantKeys: number;
  rewrapped: number;
}

/**
 * `ledger keys rotate`: wraps every tenant data key not yet under the current
 * master key again, under it, in one append to the keyring (a fact per key,
 * no event rewritten). Run again, it re-wraps only what a concurrent creation
 * left under an older key, so it is safe to repeat.
 */
export async function rotateMasterKey(store: EventStore, keys: MasterKeys, context: CommandContext): Promise<MasterKeyRotation> {
  const { result } = await runCommand(
    store,
    context,
    async (reads): Promise<Decision<MasterKeyRotation>> => {
      const keyring = (await reads.fold(streams.keyring(), foldKeyring)) ?? new Map<string, KeyringEntry>();
      const events = decideRewrap(keyring, keys, context.now);
      const rotation = {
        masterKeyId: keys.current.id,
        previousMasterKeyIds: [...new Set(events.map((event) => event.data.previousMasterKeyId))],
        tenantKeys: keyring.size,
        rewrapped: events.length,
      };
      return events.length === 0 ? { answer: rotation, position: null } : { record: { streamId: streams.keyring(), facts: events }, answer: rotation };
    },
    { attempts: KEYRING_ATTEMPTS },
  );
  return result;
}
