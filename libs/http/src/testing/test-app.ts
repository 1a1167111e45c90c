import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { Body, Controller, Get, HttpCode, Logger, Module, Post } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Type } from 'class-transformer';
import { IsArray, IsIn, IsInt, IsOptional, IsString, ValidateNested } from 'class-validator';
import { EVENT_STORE, SqliteEventStore } from '@ledger/event-store';
import { CLOCK, IdentifierProtection, Principal, Scopes, conflict, currentContext, fixedClock, validationError } from '@ledger/platform';
import { ephemeralCustomerKeys, ephemeralTenantKeys } from '@ledger/platform/testing';
import { API_KEY_VERIFIER, ApiKeyVerifier } from '../auth/api-key-verifier';
import { CurrentPrincipal, Public, RequireScopes } from '../auth/auth.decorators';
import { createHttpApp } from '../configure-http-app';
import { IDEMPOTENCY_HEARTBEAT } from '../idempotency/idempotency.interceptor';
import { Idempotent } from '../idempotency/idempotent.decorator';
import { createJsonLogger } from '../logging/json-logger';

/**
 * A small application on the production HTTP stack (createHttpApp) with a real
 * SQLite event store, for the specs of this library. Only the controllers and
 * the key verifier are test doubles.
 */

export const KEYS: Record<string, Principal> = {
  'key-writer': { tenantId: 'tenant-a', keyId: 'kid-writer', scopes: [Scopes.WRITE, Scopes.READ] },
  'key-reader': { tenantId: 'tenant-a', keyId: 'kid-reader', scopes: [Scopes.READ] },
  'key-other-tenant': { tenantId: 'tenant-b', keyId: 'kid-other', scopes: [Scopes.WRITE] },
};

const verifier: ApiKeyVerifier = { verify: async (apiKey) => KEYS[apiKey] ?? null };

class VerificationDto {
  @IsIn(['in_person', 'biometric'])
  method!: string;
}

class IdentifierDto {
  @IsString()
  kind!: string;

  @IsString()
  value!: string;

  @IsOptional()
  @ValidateNested()
  @Type(() => VerificationDto)
  verification?: VerificationDto;
}

class ResolveDto {
  @IsString()
  userReference!: string;

  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => IdentifierDto)
  identifiers!: IdentifierDto[];

  @IsOptional()
  @IsInt()
  count?: number;
}

class ThingDto {
  @IsString()
  name!: string;

  /** What the handler does: answer, or fail in one of the ways the idempotency rules distinguish. */
  @IsOptional()
  @IsIn(['conflict', 'validation', 'crash', 'wait'])
  behaviour?: string;
}

/** Counts handler runs and lets a test hold a handler until it says so. */
export class HandlerProbe {
  runs = 0;
  private held: { entered: () => void; gate: Promise<void> } | undefined;

  /** The next handlers with behaviour `wait` block until `release` is called. */
  hold(): { entered: Promise<void>; release: () => void } {
    let release = () => {};
    let entered = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const enteredPromise = new Promise<void>((resolve) => (entered = resolve));
    this.held = { entered, gate };
    return { entered: enteredPromise, release };
  }

  /** Gives up after 2 s, so that a broken rule letting a second request in fails its test instead of hanging it. */
  async wait(): Promise<void> {
    if (!this.held) return;
    this.held.entered();
    const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('held too long')), 2_000).unref());
    await Promise.race([this.held.gate, timeout]);
  }
}

@Controller()
class TestController {
  private readonly logger = new Logger('test-controller');

  constructor(private readonly probe: HandlerProbe) {}

  @Public()
  @Get('health')
  health() {
    return { ok: true };
  }

  @Public()
  @Get('boom')
  boom() {
    throw new Error('internal detail that must stay in the logs');
  }

  @Get('unclassified')
  unclassified() {
    return { reached: true };
  }

  @RequireScopes(Scopes.ADMIN)
  @Get('admin')
  admin() {
    return { reached: true };
  }

  @RequireScopes(Scopes.READ)
  @Get('whoami')
  whoami(@CurrentPrincipal() principal: Principal) {
    this.logger.log('who am i');
    return { tenantId: principal.tenantId, keyId: principal.keyId };
  }

  @RequireScopes(Scopes.WRITE)
  @Post('resolve')
  @HttpCode(200)
  resolve(@Body() body: ResolveDto) {
    return { userReference: body.userReference, identifiers: body.identifiers.length };
  }

  @RequireScopes(Scopes.WRITE)
  @Idempotent()
  @Post('things')
  async createThing(@Body() body: ThingDto) {
    this.probe.runs += 1;
    if (body.behaviour === 'wait') await this.probe.wait();
    if (body.behaviour === 'conflict') throw conflict('thing_already_exists', 'A thing with this name exists.');
    if (body.behaviour === 'validation') throw validationError('The name is reserved.', { reason: 'name_reserved' });
    if (body.behaviour === 'crash') throw new Error('the database fell over');
    return { run: this.probe.runs, name: body.name };
  }

  @RequireScopes(Scopes.WRITE)
  @Idempotent({ protectResponse: true })
  @Post('secret-things')
  createSecretThing(@Body() body: ThingDto) {
    this.probe.runs += 1;
    return { run: this.probe.runs, name: body.name, secret: `whsec_shown-once-${this.probe.runs}` };
  }

  @RequireScopes(Scopes.WRITE)
  @Idempotent({ required: false })
  @Post('optional-things')
  createOptionalThing(@Body() body: ThingDto) {
    this.probe.runs += 1;
    return { run: this.probe.runs, name: body.name, idempotency: currentContext()?.idempotency ?? null };
  }
}

export interface TestApp {
  app: NestFastifyApplication;
  probe: HandlerProbe;
  clock: ReturnType<typeof fixedClock>;
  store: SqliteEventStore;
  /** Every JSON line logged so far. */
  logs: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

/** A temporary directory for SQLite files, removed by the returned function. */
export function tempDir(): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-http-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** How often the test app's requests renew their Idempotency-Key claim: fast, so a lease can be outlived inside a test. */
export const TEST_IDEMPOTENCY_HEARTBEAT_MS = 20;

export async function startTestApp(storeFile: string, clock = fixedClock(Date.UTC(2026, 0, 5, 12))): Promise<TestApp> {
  const logs: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) logs.push(JSON.parse(line));
      callback();
    },
  });
  const store = new SqliteEventStore(storeFile);
  const probe = new HandlerProbe();

  @Module({
    controllers: [TestController],
    providers: [
      { provide: HandlerProbe, useValue: probe },
      { provide: API_KEY_VERIFIER, useValue: verifier },
      { provide: EVENT_STORE, useValue: store },
      { provide: CLOCK, useValue: clock },
      { provide: IdentifierProtection, useValue: new IdentifierProtection(ephemeralTenantKeys(), ephemeralCustomerKeys()) },
      { provide: IDEMPOTENCY_HEARTBEAT, useValue: TEST_IDEMPOTENCY_HEARTBEAT_MS },
    ],
  })
  class TestModule {}

  const app = await createHttpApp(TestModule, createJsonLogger({ level: 'debug', destination }));
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  return {
    app,
    probe,
    clock,
    store,
    logs,
    close: async () => {
      await app.close();
      await store.close();
    },
  };
}
