import { Writable } from 'node:stream';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import type { Queue } from 'bullmq';
import { EVENT_STORE, EventStore } from '@ledger/event-store';
import { queueToken } from '@ledger/queues';
import { configureTenant, createTenant, issueApiKey } from '@ledger/ledger';
import { Scope, loadConfig } from '@ledger/platform';
import { createApiApp } from '../../apps/api/src/create-api-app';
import { TestEnvironment } from './environment';
import { TEST_PRESENTATION } from './redec-fixtures';
import { freePort } from './processes';

/** The whole service in this process, on the production HTTP stack, the real SQLite store and Redis. */
export interface ApiApp {
  app: NestFastifyApplication;
  http: ReturnType<typeof request>;
  store: EventStore;
  /** Every JSON log line the service wrote. */
  logs: Array<Record<string, unknown>>;
  /**
   * A new tenant and a key with these scopes, minted as `ledger tenant create` and `ledger key issue` do, with
   * TEST_PRESENTATION set (its consent pages can be opened) unless `presentation: false` (a tenant with the default settings).
   */
  tenantKey(scopes: Scope[], options?: { presentation?: boolean }): Promise<{ tenantId: string; apiKey: string; keyId: string }>;
  close(): Promise<void>;
}

export async function startApiApp(environment: TestEnvironment, env: Record<string, string> = {}): Promise<ApiApp> {
  const config = loadConfig({ ...environment.env, ...env }, () => undefined);
  const logs: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) logs.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const app = await createApiApp(config, sink);
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  const http = request(app.getHttpServer());
  // Ready, not degraded: a test starts on a read model that has caught up (a rebuilding one is only `degraded`).
  await waitUntil(async () => (await http.get('/health/ready')).body.status === 'ready', 10_000);
  const store = app.get<EventStore>(EVENT_STORE);
  const operator = () => ({ actor: 'cli:test', correlationId: 'test', now: Date.now() });
  return {
    app,
    http,
    store,
    logs,
    async tenantKey(scopes, { presentation = true } = {}) {
      const { tenantId } = await createTenant(store, 'Banco de Prueba', operator());
      if (presentation) await configureTenant(store, tenantId, { presentation: TEST_PRESENTATION }, operator());
      const { apiKey, keyId } = await issueApiKey(store, { tenantId, scopes }, operator());
      return { tenantId, apiKey, keyId };
    },
    close: () => app.close(),
  };
}

export interface ListeningApiApp extends ApiApp {
  /** `http://127.0.0.1:<port>`, also its LEDGER_PUBLIC_URL. */
  publicUrl: string;
}

/**
 * The service on a free port of 127.0.0.1, reached over real HTTP (a browser,
 * fetch), with LEDGER_PUBLIC_URL naming that port: the URLs it hands out
 * and the servers of its OpenAPI document point back at it.
 */
export async function startListeningApiApp(environment: TestEnvironment, env: Record<string, string> = {}): Promise<ListeningApiApp> {
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  const api = await startApiApp(environment, { LEDGER_PUBLIC_URL: publicUrl, ...env });
  await api.app.listen(port, '127.0.0.1');
  return { ...api, publicUrl };
}

export async function waitUntil(condition: () => Promise<boolean> | boolean, timeoutMs: number, intervalMs = 25): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * Resolves once the app's check of rights requests' deadlines (decision
 * 0069) has completed at least `runs` times: it runs once as the app starts,
 * then every LEDGER_RIGHTS_DEADLINE_CHECK_MS.
 */
export async function rightsDeadlineChecks(api: Pick<ApiApp, 'app'>, runs: number, timeoutMs = 20_000): Promise<void> {
  const queue = api.app.get<Queue>(queueToken('rights-deadlines'));
  await waitUntil(async () => (await queue.getCompletedCount()) >= runs, timeoutMs, 50);
}
