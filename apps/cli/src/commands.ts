import { randomUUID } from 'node:crypto';
import { userInfo } from 'node:os';
import { EventStore } from '@ledger/event-store';
import { CommandContext, createTenant, issueApiKey, revokeApiKey } from '@ledger/ledger';
import { Clock } from '@ledger/platform';
import { ProjectionRunner } from '@ledger/projections';
import { UsageError } from './cli-error';

export interface CliDependencies {
  store: EventStore;
  clock: Clock;
  /** Built only by the commands that need Redis, so tenant and key commands work without it. */
  projections: () => ProjectionRunner;
  progress: (line: string) => void;
}

type Options = Record<string, string | undefined>;
type Command = (options: Options, deps: CliDependencies) => Promise<unknown>;

/** CONTRACT.md, "Operator CLI": every command prints exactly one JSON document on stdout. */
export const commands: Record<string, { usage: string; options: string[]; run: Command }> = {
  'tenant create': {
    usage: 'tenant create --name NAME',
    options: ['name'],
    run: (o, d) => createTenant(d.store, required(o, 'name'), operatorContext(d.clock)),
  },
  'key issue': {
    usage: 'key issue --tenant TENANT_ID --scopes SCOPE[,SCOPE...]',
    options: ['tenant', 'scopes'],
    run: (o, d) => {
      const tenantId = uuid(required(o, 'tenant'), 'tenant');
      const scopes = required(o, 'scopes').split(',').map((s) => s.trim()).filter(Boolean);
      return issueApiKey(d.store, { tenantId, scopes }, operatorContext(d.clock));
    },
  },
  'key revoke': {
    usage: 'key revoke --key KEY_ID',
    options: ['key'],
    run: (o, d) => revokeApiKey(d.store, keyId(required(o, 'key')), operatorContext(d.clock)),
  },
  'projections status': {
    usage: 'projections status',
    options: [],
    run: async (_o, d) => ({ projections: await d.projections().status() }),
  },
  'projections rebuild': {
    usage: 'projections rebuild [--name NAME]',
    options: ['name'],
    run: async (o, d) => {
      const names = o.name ? [o.name] : undefined;
      const rebuilt = await d.projections().rebuild(names, (p) =>
        d.progress(`${p.name}: ${p.events} events, position ${p.position}/${p.head}, ${Math.round(p.ratePerSecond)} events/s, ~${Math.ceil(p.etaSeconds)} s left`),
      );
      return { projections: rebuilt };
    },
  },
};

function operatorContext(clock: Clock): CommandContext {
  return { actor: `cli:${userInfo().username}`, correlationId: randomUUID(), now: clock.now() };
}

function required(options: Options, name: string): string {
  const value = options[name];
  if (value === undefined || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value;
}

function uuid(value: string, name: string): string {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)) throw new UsageError(`--${name} must be a tenant id`);
  return value.toLowerCase();
}

function keyId(value: string): string {
  if (!/^[0-9a-f]{24}$/.test(value)) throw new UsageError('--key must be a key id (24 hexadecimal characters)');
  return value;
}
