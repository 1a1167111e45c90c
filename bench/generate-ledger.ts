import { createHash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { ExpectedRevision, NewEvent, SqliteEventStore, canonicalJson } from '@ledger/event-store';
import {
  CommandContext,
  Customer,
  CustomerEvent,
  CustomerIdentifier,
  IdentifierInput,
  decideCreateDataKey,
  decideCreateTenant,
  decideIssueApiKey,
  decideResolution,
  evolveCustomer,
  identityKey,
  normalizeIdentifiers,
  rutCheckDigit,
  streams,
  toNewEvent,
} from '@ledger/ledger';
import { DomainError, MasterKeys, TenantDataKey, masterKeys, timeOrderedId } from '@ledger/platform';
import {
  AccessOutcome,
  AccessRequest,
  BASELINE_PROFILE,
  BindingKind,
  Channel,
  ConfigurationContent,
  ConsentEvent,
  ConsentState,
  CreditExtensionEndReason,
  GrantEvidence,
  GrantableConfiguration,
  NotificationReason,
  NotificationStatus,
  ObligationBindings,
  ProfileCatalog,
  RegulatoryProfile,
  bankingCalendar,
  checkInteraction,
  decideAuthorize,
  decideBind,
  decideConfirm,
  decideCreateInteraction,
  decideEndExtension,
  decideGrant,
  decideNotificationEvidence,
  decidePublication,
  decideRegisterExtension,
  decideRevoke,
  evolveConsent,
  evolveObligationBindings,
  generateInternalConsentCode,
  grantPolicyOf,
  initialAccessValidUntil,
  localDateOf,
  maskRut,
  redecAccessIdFor,
  redecConsentIdFor,
  redecStreams,
} from '@ledger/redec';

/**
 * Writes a realistic ledger of exactly N events into a fresh SQLite event
 * store, through `SqliteEventStore.append` (so ids, revisions, integrity
 * hashes and positions are the store's own), for benchmarks of everything
 * that reads the log: projection rebuilds first of all.
 *
 * The traffic is simulated, not sampled: a few banks (tenants) with API keys
 * and published REDEC configurations; customers resolved with identifiers
 * (RUT with a valid check digit, some e-mails) protected under each
 * customer's own data key, as decision 0035 has the service record them
 * (uniqueness is judged on the blind index, which lives in the key table
 * outside the log, so no reservation stream is written for a customer), some
 * coming back for a second consent; interactions, grants on
 * three channels with their evidence, certificates stored, notification
 * evidence, access decisions and confirmations, credit extensions (with the
 * obligation bindings they make, explicit bindings, legacy bindings and the
 * odd disagreeing one), extensions ending, revocations, revocations corrected
 * by an earlier credit. Every fact is decided by the libraries' own deciders
 * on the state the earlier facts made, so each is one the service could have
 * recorded, and the projections accept all of them. Actions happen at
 * simulated instants (a few months of traffic, whatever N) and run in time
 * order, so one consent's facts are spread through the log among those of
 * thousands of others, as in production.
 *
 * Deterministic for a seed except for the ciphertexts of protected values
 * (random IVs, as in the service), the customers' data keys (random, as in
 * the service) and therefore the stored hashes: the same seed gives the same
 * streams, ids and facts. The customers' keys and the blind index are not
 * written: they belong to the key table, which no benchmark of the log reads,
 * so the customers' values in a generated ledger open under no key, as after
 * an erasure.
 *
 *     node dist/bench/generate-ledger.js --events 1000000 --file /tmp/ledger.sqlite [--seed 1] [--without-tree]
 */

export interface GenerateLedgerOptions {
  /** Exactly this many events are written (1,000,000 by default). */
  events?: number;
  /** A new SQLite file; refused if it exists. */
  file: string;
  /** Seeds every random choice (1). */
  seed?: number;
  /**
   * false: append without the ledger's Merkle tree (`merkleTree: false`), as
   * a ledger written before the tree: no event has a leaf, for the
   * benchmark of the tree's build (ledger-log.bench.ts). true by default.
   */
  merkleTree?: boolean;
  /** Called every `progressEvery` events written. */
  onProgress?: (written: number, total: number) => void;
  progressEvery?: number;
}

export interface GeneratedLedger {
  file: string;
  events: number;
  /** Store appends (one per command, as the service makes them). */
  appends: number;
  streams: number;
  tenants: number;
  customers: number;
  consents: number;
  /** Facts per event type. */
  eventTypes: Record<string, number>;
  /** Actions the deciders refused (nothing recorded), by error code, as the service would have refused the requests. */
  refusals: Record<string, number>;
  /** Simulated period covered, first and last fact (ISO dates). */
  from: string;
  through: string;
  seconds: number;
  /** The SQLite file's size once closed. */
  bytes: number;
}

export const DEFAULT_LEDGER_EVENTS = 1_000_000;

/** The master key (hex) a service is started with to open the keyrings of a ledger generated with `seed`. */
export function generatedLedgerMasterKey(seed = 1): string {
  return createHash('sha256').update(`bench-ledger-master-key:${seed}`).digest('hex');
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** Monday 3 March 2025, 09:00 in Santiago: inside the shipped holiday table's coverage. */
const START = Date.UTC(2025, 2, 3, 12, 0, 0);
/** Every fact a consent's lifecycle makes, on average, with its customer's share (measured on generated ledgers). */
const EVENTS_PER_ARRIVAL = 11;
/** However large the ledger, it covers about this many days of traffic: more events mean busier days. */
const SIMULATED_DAYS = 120;
/** Appends queued before waiting for their commits; the store commits at most 1000 appends per transaction. */
const APPENDS_IN_FLIGHT = 1000;

const TENANTS = [
  { name: 'Banco Austral', code: 'BAU', weight: 30 },
  { name: 'Banco del Pacífico Sur', code: 'BPS', weight: 22 },
  { name: 'Banco Cordillera', code: 'BCO', weight: 15 },
  { name: 'Cooperativa de Ahorro Andina', code: 'CAA', weight: 10 },
  { name: 'Caja de Compensación Los Aromos', code: 'CLA', weight: 8 },
  { name: 'Financiera Valle Central', code: 'FVC', weight: 7 },
  { name: 'Banco Atacama', code: 'BAT', weight: 5 },
  { name: 'Tarjetas del Sur', code: 'TDS', weight: 3 },
];

const CONSENT_TEXT =
  'Autorizo a {bank} a consultar mis datos del Registro de Deuda Consolidada (REDEC) administrado por la Comisión para el ' +
  'Mercado Financiero, con la finalidad de evaluar mi solicitud de crédito y, de ser otorgado, gestionar la obligación que de ' +
  'él resulte, conforme a la Ley N° 21.680. Declaro conocer que puedo revocar esta autorización en cualquier momento por los ' +
  'mismos canales en que la otorgué, y que la revocación no afectará las consultas realizadas con anterioridad ni las ' +
  'obligaciones vigentes. Versión {version}.';

interface TemplatePlan {
  templateKey: string;
  title: string;
  channel: Channel;
  weight: number;
  objectiveCodes: string[];
  finalityCode: string;
}

const TEMPLATES: readonly TemplatePlan[] = [
  { templateKey: 'redec-credit-evaluation', title: 'Consulta al Registro de Deuda Consolidada', channel: 'digital', weight: 60, objectiveCodes: ['02', '03'], finalityCode: '2' },
  { templateKey: 'redec-phone-sales', title: 'Autorización telefónica REDEC', channel: 'phone', weight: 20, objectiveCodes: ['02'], finalityCode: '2' },
  { templateKey: 'redec-branch', title: 'Autorización presencial REDEC', channel: 'in_person', weight: 20, objectiveCodes: ['02', '03', '04'], finalityCode: '1' },
];

const VERIFICATION_METHODS = ['clave_unica', 'cedula_biometrica', 'sii_clave_tributaria', 'video_selfie'];
const FIRST_NAMES = ['camila', 'josefa', 'martina', 'sofia', 'valentina', 'benjamin', 'matias', 'vicente', 'agustin', 'tomas', 'catalina', 'diego'];
const LAST_NAMES = ['gonzalez', 'munoz', 'rojas', 'diaz', 'perez', 'soto', 'contreras', 'silva', 'martinez', 'sepulveda', 'morales', 'fuentes'];
const EMAIL_DOMAINS = ['gmail.com', 'hotmail.com', 'outlook.com', 'yahoo.com', 'vtr.net'];

/** A small fast PRNG (sfc32), seeded through splitmix32: the ledger is reproducible from its seed. */
class Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    let s = seed >>> 0;
    const next = () => {
      s = (s + 0x9e3779b9) >>> 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
  }

  uint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** [0, 1) */
  next(): number {
    return this.uint32() / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  between(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }

  weighted<T extends { weight: number }>(items: readonly T[]): T {
    const total = items.reduce((sum, item) => sum + item.weight, 0);
    let r = this.next() * total;
    for (const item of items) {
      r -= item.weight;
      if (r < 0) return item;
    }
    return items[items.length - 1];
  }

  /** Exponentially distributed, for waiting times. */
  exp(mean: number): number {
    return -Math.log(1 - this.next()) * mean;
  }

  hex(chars: number): string {
    let out = '';
    while (out.length < chars) out += this.uint32().toString(16).padStart(8, '0');
    return out.slice(0, chars);
  }

  digits(count: number): string {
    let out = '';
    for (let i = 0; i < count; i++) out += String(this.int(10));
    return out;
  }

  /** A version 7 UUID of the instant `at`, its random part made of this generator's bits: an event id as the service makes one. */
  timeOrderedId(at: number): string {
    return timeOrderedId(at, (bytes) => bytes.forEach((_, i) => (bytes[i] = this.int(256))));
  }

  /** A version 4 UUID made of this generator's bits. */
  uuid(): string {
    const h = this.hex(32);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${((parseInt(h[16], 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
  }
}

/** Pending simulated actions, earliest first (a binary heap; `seq` keeps equal instants in scheduling order). */
class Agenda {
  private readonly heap: Array<{ at: number; seq: number; run: () => void }> = [];
  private seq = 0;

  get size(): number {
    return this.heap.length;
  }

  schedule(at: number, run: () => void): void {
    const heap = this.heap;
    // Instants are whole milliseconds, as the service's clock gives them.
    heap.push({ at: Math.round(at), seq: this.seq++, run });
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(heap[i], heap[parent])) break;
      [heap[i], heap[parent]] = [heap[parent], heap[i]];
      i = parent;
    }
  }

  pop(): { at: number; run: () => void } | undefined {
    const heap = this.heap;
    if (heap.length === 0) return undefined;
    const top = heap[0];
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        const right = left + 1;
        let smallest = i;
        if (left < heap.length && this.before(heap[left], heap[smallest])) smallest = left;
        if (right < heap.length && this.before(heap[right], heap[smallest])) smallest = right;
        if (smallest === i) break;
        [heap[i], heap[smallest]] = [heap[smallest], heap[i]];
        i = smallest;
      }
    }
    return top;
  }

  private before(x: { at: number; seq: number }, y: { at: number; seq: number }): boolean {
    return x.at < y.at || (x.at === y.at && x.seq < y.seq);
  }
}

interface Template {
  plan: TemplatePlan;
  streamId: string;
  revision: ExpectedRevision;
  latestVersion: number;
  configuration: GrantableConfiguration;
}

interface Tenant {
  tenantId: string;
  name: string;
  code: string;
  weight: number;
  keyIds: string[];
  templates: Template[];
  customers: CustomerRecord[];
}

interface CustomerRecord {
  tenant: Tenant;
  customerId: string;
  state: Customer | null;
  revision: ExpectedRevision;
  rut: string;
  userReference: string;
  email: string | null;
}

interface ConsentRecord {
  tenant: Tenant;
  redecConsentId: string;
  streamId: string;
  revision: ExpectedRevision;
  state: ConsentState;
  grantEventId: string;
  grantCorrelationId: string;
  profile: RegulatoryProfile;
}

class LedgerGenerator {
  private readonly random: Random;
  private readonly agenda = new Agenda();
  /** The master key the service would be started with to read this ledger. */
  private readonly masterKeys: MasterKeys;
  /** Each tenant's data key, recorded in the keyring as the service records it on first use. */
  private readonly dataKeys = new Map<string, TenantDataKey>();
  private readonly profiles = new ProfileCatalog();
  private readonly calendar = bankingCalendar();
  private readonly validUntilByDay = new Map<string, number>();
  /** The blind index: each tenant-keyed hash of a userReference or identifier and the customer it names (the key table's, in the service). */
  private readonly claims = new Map<string, string>();
  /** Each customer's data key (decision 0035), under which its values are recorded. */
  private readonly customerKeys = new Map<string, TenantDataKey>();
  private readonly obligationRevisions = new Map<string, { revision: ExpectedRevision; bindings: ObligationBindings }>();
  private readonly store: SqliteEventStore;
  private readonly tenants: Tenant[] = [];
  private pending: Array<Promise<unknown>> = [];
  private now = START - 7 * DAY;
  private first = Number.POSITIVE_INFINITY;
  private written = 0;
  private appends = 0;
  private streams = 0;
  private customers = 0;
  private consents = 0;
  private readonly refusals: Record<string, number> = {};
  private nextProgress: number;
  private readonly eventTypes: Record<string, number> = {};
  /** New applications per simulated day over all tenants. */
  private readonly arrivalsPerDay: number;

  constructor(
    private readonly target: number,
    private readonly options: GenerateLedgerOptions,
  ) {
    const seed = options.seed ?? 1;
    this.random = new Random(seed);
    this.masterKeys = masterKeys(Buffer.from(generatedLedgerMasterKey(seed), 'hex'));
    this.store = new SqliteEventStore(options.file, { clock: { now: () => this.now }, merkleTree: options.merkleTree ?? true });
    this.arrivalsPerDay = Math.max(20, target / EVENTS_PER_ARRIVAL / SIMULATED_DAYS);
    this.nextProgress = options.progressEvery ?? 100_000;
  }

  async run(): Promise<Omit<GeneratedLedger, 'seconds' | 'bytes' | 'file'>> {
    try {
      this.openTenants();
      while (this.written < this.target) {
        const action = this.agenda.pop();
        if (!action) throw new Error('the simulation ran out of actions');
        this.now = Math.max(this.now, action.at);
        try {
          action.run();
        } catch (error) {
          // A refusal is what the service answers to such a request: nothing is recorded.
          if (!(error instanceof DomainError)) throw error;
          this.refusals[error.code] = (this.refusals[error.code] ?? 0) + 1;
        }
        if (this.pending.length >= APPENDS_IN_FLIGHT) await this.flush();
      }
      await this.flush();
    } finally {
      await this.store.close();
    }
    return {
      events: this.written,
      appends: this.appends,
      streams: this.streams,
      tenants: this.tenants.length,
      customers: this.customers,
      consents: this.consents,
      eventTypes: this.eventTypes,
      refusals: this.refusals,
      from: new Date(this.first).toISOString().slice(0, 10),
      through: new Date(this.now).toISOString().slice(0, 10),
    };
  }

  private async flush(): Promise<void> {
    const pending = this.pending;
    this.pending = [];
    await Promise.all(pending);
    if (this.written >= this.nextProgress || this.written >= this.target) {
      this.options.onProgress?.(this.written, this.target);
      while (this.nextProgress <= this.written) this.nextProgress += this.options.progressEvery ?? 100_000;
    }
  }

  /**
   * Queues one append (one command's facts in one stream), unless it would
   * take the ledger past its size: then nothing is appended and false is
   * returned, so the caller records nothing either.
   */
  private append(streamId: string, events: NewEvent[], expected: ExpectedRevision): boolean {
    if (this.written + events.length > this.target) return false;
    this.pending.push(this.store.append(streamId, events, expected));
    this.written += events.length;
    this.appends += 1;
    if (expected === 'no_stream') this.streams += 1;
    this.first = Math.min(this.first, this.now);
    for (const event of events) this.eventTypes[event.type] = (this.eventTypes[event.type] ?? 0) + 1;
    return true;
  }

  /** An API request's context: its key, a request id, and an Idempotency-Key on some. */
  private request(tenant: Tenant, extra: Partial<CommandContext> = {}): CommandContext & { tenantId: string } {
    const context: CommandContext & { tenantId: string } = {
      tenantId: tenant.tenantId,
      actor: this.random.pick(tenant.keyIds),
      correlationId: this.random.uuid(),
      now: this.now,
      ...extra,
    };
    if (this.random.chance(0.4)) {
      context.idempotencyKey = this.random.uuid();
      context.requestHash = this.random.hex(64);
    }
    return context;
  }

  private event<E extends { type: string; data: unknown }>(event: E, context: CommandContext, id = this.random.timeOrderedId(context.now)): NewEvent {
    return toNewEvent(event, context, id);
  }

  // ---- tenants, keys, configurations ------------------------------------------------

  private openTenants(): void {
    for (const plan of TENANTS) {
      const tenantId = this.random.uuid();
      const operator: CommandContext = { actor: 'cli:operator', correlationId: this.random.uuid(), now: this.now, tenantId };
      const tenant: Tenant = { tenantId, name: plan.name, code: plan.code, weight: plan.weight, keyIds: [], templates: [], customers: [] };
      this.tenants.push(tenant);
      this.append(streams.tenant(tenantId), decideCreateTenant(tenantId, plan.name, this.now).map((e) => this.event(e, operator)), 'no_stream');
      const dataKey = TenantDataKey.generate(tenantId);
      this.dataKeys.set(tenantId, dataKey);
      const keyCreated = decideCreateDataKey(new Map(), dataKey, this.masterKeys, this.now);
      const keyring: CommandContext = { actor: 'service:keyring', correlationId: this.random.uuid(), now: this.now };
      this.append(streams.keyring(), keyCreated.map((e) => this.event(e, keyring)), this.tenants.length === 1 ? 'no_stream' : this.tenants.length - 2);
      for (let k = 0; k < 2; k++) {
        const keyId = this.random.hex(24);
        const issued = decideIssueApiKey({
          keyId,
          tenantId,
          tenantExists: true,
          scopes: k === 0 ? ['consent:admin', 'consent:write', 'consent:read'] : ['consent:write', 'consent:read', 'consent:identity-assert'],
          secretSha256: this.random.hex(64),
          now: this.now,
        });
        this.append(streams.apiKey(keyId), issued.map((e) => this.event(e, operator)), 'no_stream');
        tenant.keyIds.push(keyId);
      }
      for (const templatePlan of TEMPLATES) {
        const template: Template = {
          plan: templatePlan,
          streamId: redecStreams.configurationTemplate(tenantId, templatePlan.templateKey),
          revision: 'no_stream',
          latestVersion: 0,
          configuration: undefined as unknown as GrantableConfiguration,
        };
        tenant.templates.push(template);
        this.publish(tenant, template);
        // Wording is revised every month or two: a new version, which new interactions use.
        const republish = () => {
          this.publish(tenant, template);
          this.agenda.schedule(this.now + this.random.between(30, 75) * DAY, republish);
        };
        this.agenda.schedule(START + this.random.between(20, 60) * DAY, republish);
      }
      this.agenda.schedule(START + this.random.exp(this.meanArrivalGap(tenant)), () => this.arrive(tenant));
      this.agenda.schedule(START + this.random.exp(DAY / 8), () => this.legacyBinding(tenant));
    }
  }

  private publish(tenant: Tenant, template: Template): void {
    const { plan } = template;
    const version = template.latestVersion + 1;
    const content: ConfigurationContent = {
      templateKey: plan.templateKey,
      title: plan.title,
      text: CONSENT_TEXT.replace('{bank}', tenant.name).replace('{version}', `${version}.0`),
      channel: plan.channel,
      captureTiming: 'deferred_external',
      redec: {
        finalityCode: plan.finalityCode,
        objectiveCodes: plan.objectiveCodes,
        scopes: [{ scopeId: 'redec-debt', dataCategoryCode: 'redec.consolidated_debt_record' }],
        targets: [tenant.name],
        obligationSourceSystem: 'core-loans',
        regulatoryProfile: 'baseline',
      },
      embed: null,
      gracePeriodDays: 0,
    };
    const configurationId = this.random.uuid();
    const [published] = decidePublication(
      { type: 'PublishConfiguration', data: { configurationId, content }, metadata: { now: this.now } },
      template.latestVersion === 0 ? null : { templateKey: plan.templateKey, latestVersion: template.latestVersion },
      this.profiles,
    );
    if (!this.append(template.streamId, [this.event(published, this.request(tenant))], template.revision)) return;
    template.revision = template.revision === 'no_stream' ? 0 : (template.revision as number) + 1;
    template.latestVersion = published.data.version;
    const { configurationId: id, templateKey, version: v, title, text, channel, captureTiming, redec } = published.data;
    template.configuration = { configurationId: id, templateKey, version: v, title, text, channel, captureTiming, redec };
  }

  // ---- customers and interactions -----------------------------------------------------

  private meanArrivalGap(tenant: Tenant): number {
    const share = tenant.weight / TENANTS.reduce((sum, t) => sum + t.weight, 0);
    return DAY / (this.arrivalsPerDay * share);
  }

  /** A customer applies: resolved (new, or coming back), an interaction opened, the grant reported later. */
  private arrive(tenant: Tenant): void {
    const gap = this.meanArrivalGap(tenant);
    this.agenda.schedule(this.now + this.random.exp(gap), () => this.arrive(tenant));
    // Fewer applications at weekends.
    const weekday = new Date(this.now - 3 * HOUR).getUTCDay();
    if ((weekday === 0 || weekday === 6) && this.random.chance(0.7)) return;

    const returning = tenant.customers.length > 50 && this.random.chance(0.25);
    const customer = returning ? this.random.pick(tenant.customers) : this.newCustomer(tenant);
    if (!this.resolve(customer, returning)) return;
    if (!returning) tenant.customers.push(customer);
    const template = this.random.weighted(tenant.templates.map((t) => ({ ...t, weight: t.plan.weight })));
    const openedAt = this.now + this.random.between(2, 40) * 1000;
    this.agenda.schedule(openedAt, () => this.openInteraction(customer, tenant.templates.find((t) => t.plan === template.plan)!));
  }

  private newCustomer(tenant: Tenant): CustomerRecord {
    const body = String(this.random.between(5_000_000, 26_999_999));
    const first = this.random.pick(FIRST_NAMES);
    const last = this.random.pick(LAST_NAMES);
    return {
      tenant,
      customerId: this.random.uuid(),
      state: null,
      revision: 'no_stream',
      rut: `${body}-${rutCheckDigit(body)}`,
      userReference: `${tenant.code}-${this.random.digits(9)}`,
      email: this.random.chance(0.3) ? `${first}.${last}${this.random.between(1, 999)}@${this.random.pick(EMAIL_DOMAINS)}` : null,
    };
  }

  /**
   * POST /v1/customers/resolve as resolveCustomer records it: identifier
   * claims and the userReference claim on the blind index, then the customer
   * fact, its values under the customer's key. A returning
   * customer's fresh verification is asserted; an e-mail given for the first
   * time is linked.
   */
  private resolve(customer: CustomerRecord, returning: boolean): boolean {
    const { tenant } = customer;
    const context = this.request(tenant);
    if (returning && customer.email === null && this.random.chance(0.15)) {
      customer.email = `${this.random.pick(FIRST_NAMES)}.${this.random.pick(LAST_NAMES)}${this.random.between(1, 999)}@${this.random.pick(EMAIL_DOMAINS)}`;
    }
    const inputs: IdentifierInput[] = [
      {
        system: 'cl-sii',
        type: 'rut',
        value: this.random.chance(0.5) ? customer.rut : formatRut(customer.rut),
        verification: { method: this.random.pick(VERIFICATION_METHODS), sourceReference: `auth-${this.random.hex(10)}`, verifiedAt: this.now - this.random.between(5, 600) * 1000 },
      },
    ];
    if (customer.email) inputs.push({ system: 'bank', type: 'email', value: customer.email });
    const normalized = normalizeIdentifiers(inputs, this.now);
    const identifiers: CustomerIdentifier[] = normalized.map((i) => ({
      system: i.system,
      type: i.type,
      value: this.protectForCustomer(customer, 'identifier', identityKey(i), i.value),
      verification: i.verification,
    }));
    const userReference = this.protectForCustomer(customer, 'user-reference', customer.userReference);
    const known = customer.state;
    const claimEntries = normalized.map((i) => `identifier:${this.protect(tenant.tenantId, 'identifier', identityKey(i)).hash}`);
    const owners = claimEntries.map((entry) => {
      const holder = this.claims.get(entry);
      return holder === undefined ? ('free' as const) : holder === customer.customerId ? ('mine' as const) : ('other' as const);
    });
    const referenceEntry = `user-reference:${this.protect(tenant.tenantId, 'user-reference', customer.userReference).hash}`;
    const referenceHolder = this.claims.get(referenceEntry);
    // The same userReference (or identifier, the `other` owner) already names another customer: refused as an identity conflict.
    if (referenceHolder !== undefined && referenceHolder !== customer.customerId) owners[0] = 'other';
    const decision = decideResolution({ customerId: customer.customerId, customer: known, userReference, identifiers, owners, now: this.now });
    if (decision.kind !== 'resolved') throw new Error('a resolution without competitors never waits');
    if (decision.events.length === 0) return known !== null;
    if (!this.append(streams.customer(tenant.tenantId, customer.customerId), decision.events.map((e) => this.event(e, context)), customer.revision)) return known !== null;
    claimEntries.forEach((entry, index) => {
      if (owners[index] === 'free') this.claims.set(entry, customer.customerId);
    });
    if (!known) this.claims.set(referenceEntry, customer.customerId);
    customer.revision = nextRevision(customer.revision, decision.events.length);
    customer.state = decision.events.reduce<Customer | null>((state, e: CustomerEvent) => evolveCustomer(state, e), known);
    if (!known) this.customers += 1;
    return true;
  }

  /** Under the tenant's key: the blind index's hashes, and what is the bank's rather than a data subject's. */
  private protect(tenantId: string, purpose: string, matchKey: string, plaintext = matchKey) {
    const dataKey = this.dataKeys.get(tenantId)!;
    return { hash: dataKey.hash(purpose, matchKey), ciphertext: dataKey.encrypt(plaintext) };
  }

  /** Under the customer's own key, created on first use (IdentifierProtection.protectForCustomer). */
  private protectForCustomer({ tenant, customerId }: CustomerRecord, purpose: string, matchKey: string, plaintext = matchKey) {
    let key = this.customerKeys.get(customerId);
    if (!key) this.customerKeys.set(customerId, (key = TenantDataKey.generate(tenant.tenantId, 'ck')));
    return { hash: key.hash(purpose, matchKey), ciphertext: key.encrypt(plaintext) };
  }

  /** POST /v1/redec/consent-interactions with the customer's id; most are granted later, some never. */
  private openInteraction(customer: CustomerRecord, template: Template): void {
    const { tenant } = customer;
    const configuration = template.configuration;
    const profile = this.profiles.get(configuration.redec!.regulatoryProfile) ?? null;
    checkInteraction(configuration, profile, customer.state!.identifiers, 'customerId', 'redec');
    const interactionId = this.random.uuid();
    const events = decideCreateInteraction({ interactionId, customerId: customer.customerId, configuration, now: this.now });
    if (!this.append(redecStreams.interaction(tenant.tenantId, interactionId), events.map((e) => this.event(e, this.request(tenant))), 'no_stream')) return;
    if (this.random.chance(0.1)) return;
    // Deferred external capture: the subject consents in the bank's own flow, the bank reports it later.
    const capturedAt = this.now + this.captureDelay(configuration.channel);
    const reportedAt = capturedAt + this.random.between(5, 1800) * 1000;
    this.agenda.schedule(reportedAt, () => this.grant(customer, interactionId, configuration, profile!, capturedAt));
  }

  private captureDelay(channel: Channel): number {
    if (channel === 'digital') return this.random.between(1, 20) * MINUTE;
    if (channel === 'phone') return this.random.between(2, 30) * MINUTE;
    return this.random.between(10, 180) * MINUTE;
  }

  // ---- consents ------------------------------------------------------------------------

  /** POST .../grant, as grantConsent records it: the internal code claimed, then the grant. */
  private grant(customer: CustomerRecord, interactionId: string, configuration: GrantableConfiguration, profile: RegulatoryProfile, occurredAt: number): void {
    const { tenant } = customer;
    const context = this.request(tenant);
    const redecConsentId = redecConsentIdFor(tenant.tenantId, interactionId);
    const consentActionId = this.random.timeOrderedId(context.now);
    const evidence = this.evidence(configuration.channel, occurredAt);
    const request = {
      occurredAt,
      sourceSystem: configuration.channel === 'digital' ? 'web-onboarding' : configuration.channel === 'phone' ? 'contact-center' : 'branch-crm',
      sourceReference: `cap-${this.random.hex(16)}`,
      representation: this.random.chance(0.03) ? this.representation(customer) : null,
      ...(this.random.chance(0.2) ? { objectiveCodes: [configuration.redec!.objectiveCodes[0]] } : {}),
      ...(this.random.chance(0.15)
        ? { reportableObligation: { status: 'current', sourceSystem: 'core-loans', sourceReference: `LN-${tenant.code}-${this.random.digits(10)}` } }
        : {}),
      evidence,
    };
    const decision = decideGrant({
      request,
      requestSha256: createHash('sha256').update(canonicalJson(request)).digest('hex'),
      interaction: { interactionId, customerId: customer.customerId },
      capture: 'deferred_external',
      configuration,
      policy: grantPolicyOf(profile),
      existing: null,
      ids: { redecConsentId, consentActionId, internalConsentCode: generateInternalConsentCode((n) => this.random.int(n)) },
      now: this.now,
      initialAccessValidUntil: (grantedAt) => this.validUntil(grantedAt),
    });
    if (decision.kind !== 'granted') throw new Error('a new interaction has no earlier grant');
    const { data } = decision.event;
    const claim = { type: 'InternalConsentCodeClaimed', data: { redecConsentId, claimedAt: this.now } };
    if (!this.append(redecStreams.internalConsentCode(tenant.tenantId, data.internalConsentCode), [this.event(claim, context)], 'no_stream')) return;
    const streamId = redecStreams.consent(tenant.tenantId, redecConsentId);
    const grantContext = { ...context, causationId: interactionId };
    if (!this.append(streamId, [this.event(decision.event, grantContext, consentActionId)], 'no_stream')) return;
    this.consents += 1;
    const consent: ConsentRecord = {
      tenant,
      redecConsentId,
      streamId,
      revision: 0,
      state: evolveConsent(null, decision.event, tenant.tenantId)!,
      grantEventId: consentActionId,
      grantCorrelationId: context.correlationId,
      profile,
    };
    this.lifecycle(consent);
  }

  private evidence(channel: Channel, occurredAt: number): GrantEvidence {
    const held = () =>
      this.random.chance(0.8)
        ? { origin: 'held' as const, contentSha256: this.random.hex(64), size: this.random.between(40_000, 2_500_000) }
        : { origin: 'external_reference' as const, externalReference: `s3://evidence/${this.random.hex(24)}`, contentSha256: this.random.hex(64) };
    if (channel === 'phone') {
      return { kind: 'audio_recording', recordedAt: occurredAt - this.random.between(0, 120) * 1000, mediaType: 'audio/mpeg', content: held() };
    }
    if (channel === 'in_person' && this.random.chance(0.6)) {
      return { kind: 'physical_document', digitizedAt: occurredAt + this.random.between(1, 240) * MINUTE, mediaType: 'application/pdf', content: held() };
    }
    return { kind: 'electronic', authentication: { method: this.random.pick(VERIFICATION_METHODS), reference: `auth-${this.random.hex(12)}` } };
  }

  /** A representative's RUT is the customer's data: under its key (decision 0035). */
  private representation(customer: CustomerRecord) {
    const body = String(this.random.between(5_000_000, 26_999_999));
    const rut = `${body}-${rutCheckDigit(body)}`;
    return {
      type: 'representative' as const,
      identifierRut: this.protectForCustomer(customer, 'representative-rut', rut),
      identifierRutMasked: maskRut(rut),
      authorityBasis: 'reporter_asserted_representation' as const,
      authorityReference: `poder-${this.random.digits(8)}`,
      assertedAt: this.now - this.random.between(1, 60) * DAY,
    };
  }

  /** The end of the initial window depends only on the grant's local day: computed once per day. */
  private validUntil(grantedAt: number): number {
    const day = localDateOf(grantedAt);
    let until = this.validUntilByDay.get(day);
    if (until === undefined) {
      until = initialAccessValidUntil(grantedAt, this.calendar);
      this.validUntilByDay.set(day, until);
    }
    return until;
  }

  /** Schedules what happens to a consent after its grant. */
  private lifecycle(consent: ConsentRecord): void {
    const { grant } = consent.state;
    const granted = this.now;
    const window = grant.initialAccessValidUntil;
    if (grant.artifact.origin === 'generated_pdf') this.agenda.schedule(granted + this.random.between(1, 8) * 1000, () => this.storeArtifact(consent));
    if (this.random.chance(0.95)) this.scheduleNotification(consent, 'grant', granted);

    // The bank queries the registry while evaluating the credit: within the initial window, most right away.
    const accesses = this.random.weighted([
      { n: 0, weight: 8 },
      { n: 1, weight: 55 },
      { n: 2, weight: 27 },
      { n: 3, weight: 10 },
    ]).n;
    for (let i = 0; i < accesses; i++) {
      const at = i === 0 ? granted + this.random.between(10, 600) * 1000 : granted + this.random.next() * (window - granted);
      this.agenda.schedule(at, () => this.access(consent, 'initial_window'));
    }
    // A few come after the window and are denied.
    if (this.random.chance(0.06)) this.agenda.schedule(window + this.random.between(1, 20) * DAY, () => this.access(consent, 'initial_window'));

    const revokes = this.random.chance(0.07);
    const credit = this.random.chance(0.35);
    if (credit) {
      const creditGrantedAt = granted + this.random.next() * Math.min(window - granted, 8 * DAY);
      const reference = `LN-${consent.tenant.code}-${this.random.digits(10)}`;
      this.agenda.schedule(creditGrantedAt + this.random.between(1, 48) * HOUR, () => this.extend(consent, reference, creditGrantedAt, ''));
    }
    if (revokes) {
      // Some revocations are corrected later: a credit granted before them is registered afterwards.
      const corrected = !credit && this.random.chance(0.15);
      const revokedAt = corrected ? granted + this.random.next() * Math.min(window - granted, 6 * DAY) : granted + this.random.between(1, 90) * DAY;
      this.agenda.schedule(revokedAt + this.random.between(1, 600) * 1000, () => this.revoke(consent, revokedAt));
      if (corrected) {
        const creditGrantedAt = granted + this.random.next() * (revokedAt - granted);
        const reference = `LN-${consent.tenant.code}-${this.random.digits(10)}`;
        this.agenda.schedule(revokedAt + this.random.between(1, 5) * DAY, () => this.extend(consent, reference, creditGrantedAt, `credit-${this.random.hex(8)}`));
      }
    }
  }

  /** The certificate worker renders the PDF and records it (appended with `any`, as the worker does). */
  private storeArtifact(consent: ConsentRecord): void {
    const event: ConsentEvent = {
      type: 'ArtifactStored',
      data: { redecConsentId: consent.redecConsentId, contentSha256: this.random.hex(64), size: this.random.between(28_000, 60_000), mediaType: 'application/pdf', storedAt: this.now },
    };
    const metadata = {
      tenantId: consent.tenant.tenantId,
      actor: 'worker:consent-certificates',
      correlationId: consent.grantCorrelationId,
      causationId: consent.grantEventId,
      recordedAt: this.now,
      schemaVersion: 1,
    };
    if (!this.append(consent.streamId, [{ id: this.random.timeOrderedId(this.now), type: event.type, data: event.data, metadata }], 'any')) return;
    this.record(consent, [event]);
  }

  /** The bank's notice to the data subject: sent, then usually delivered (each state a fact), sometimes bounced. */
  private scheduleNotification(consent: ConsentRecord, reason: NotificationReason, after: number): void {
    const sentAt = after + this.random.between(5, 900) * 1000;
    const channel = this.random.chance(0.7) ? 'email' : 'sms';
    const recipientHash = this.random.hex(64);
    const contentSha256 = this.random.hex(64);
    const sourceReference = `msg-${this.random.hex(12)}`;
    const report = (status: NotificationStatus) => () =>
      this.change(consent, (state) =>
        decideNotificationEvidence(
          state,
          { notificationReason: reason, notificationChannel: channel, recipientHash, status, sentAt, sourceSystem: 'notifier', sourceReference, contentSha256 },
          this.random.uuid(),
          this.now,
        ),
      );
    this.agenda.schedule(sentAt + this.random.between(1, 60) * 1000, report('sent'));
    const outcome = this.random.next();
    if (outcome < 0.85) this.agenda.schedule(sentAt + this.random.between(2, 3600) * 1000, report('delivered'));
    else if (outcome < 0.9) this.agenda.schedule(sentAt + this.random.between(2, 600) * 1000, report('bounced'));
  }

  /** POST /v1/redec/access-requests, then (authorized) its confirmation. */
  private access(consent: ConsentRecord, mode: AccessRequest['consentAuthorizationMode'], extension?: { reference: string; objectiveCode: string }): void {
    const { tenant, state } = consent;
    const scope = state.grant.scopes[0];
    const sourceReference = `acc-${this.random.hex(16)}`;
    const request: AccessRequest = {
      authorizationBasis: 'consent',
      consentAuthorizationMode: mode,
      redecConsentId: consent.redecConsentId,
      dataCategoryCode: scope.dataCategoryCode,
      scopeId: scope.scopeId,
      objectiveCode: extension?.objectiveCode ?? this.random.pick(state.grant.objectiveCodes),
      reportingObligation: {
        status: 'current',
        sourceSystem: 'core-loans',
        sourceReference: extension?.reference ?? `LN-${tenant.code}-${this.random.digits(10)}`,
        assertedAt: this.now - this.random.between(1, 300) * 1000,
      },
      sourceSystem: 'credit-engine',
      sourceReference,
      ...(mode === 'credit_lifecycle_extension' ? { accessPurpose: 'manage_existing_obligation' as const } : {}),
    };
    const redecAccessId = redecAccessIdFor(tenant.tenantId, request.sourceSystem, sourceReference);
    const outcome = decideAuthorize({
      existing: null,
      consent: state,
      // The generated ledger records no rights requests, so no subject is blocked.
      processingBlocks: null,
      consentRevision: consent.revision as number,
      policy: consent.profile,
      request,
      requestSha256: createHash('sha256').update(canonicalJson(request)).digest('hex'),
      redecAccessId,
      now: this.now,
    });
    if (outcome.replayed) throw new Error('a new access request is never a replay');
    const streamId = redecStreams.access(tenant.tenantId, redecAccessId);
    if (!this.append(streamId, [this.event(outcome.event, this.request(tenant))], 'no_stream')) return;
    if (outcome.event.data.status !== 'authorized' || this.random.chance(0.05)) return;
    const decision = outcome.event.data;
    this.agenda.schedule(this.now + this.random.between(1, 30) * 1000, () => {
      const kind = this.random.weighted([
        { kind: 'accessed' as const, weight: 92 },
        { kind: 'failed' as const, weight: 5 },
        { kind: 'cancelled' as const, weight: 3 },
      ]).kind;
      const result: AccessOutcome = kind === 'accessed' ? { kind, accessedAt: this.now - this.random.between(0, 5000) } : { kind };
      const confirmed = decideConfirm({ decision, confirmation: null }, consent.state, null, consent.profile, result, this.now);
      this.append(streamId, [this.event(confirmed, this.request(tenant))], 0);
    });
  }

  /**
   * A credit granted on the consent: the extension (and the obligation
   * binding it makes). Then, on some, the bank's explicit binding of the same
   * obligation, monthly accesses to manage it, and its end.
   */
  private extend(consent: ConsentRecord, reference: string, creditGrantedAt: number, sourceReference: string): void {
    const { grant } = consent.state;
    const creditExtensionId = this.random.uuid();
    const objectiveCode = this.random.pick(grant.objectiveCodes);
    const request = {
      customerTenantId: grant.customerId,
      objectiveCode,
      creditOperationReference: reference,
      creditGrantedAt: Math.round(creditGrantedAt),
      sourceSystem: 'core-loans',
      ...(sourceReference || this.random.chance(0.7) ? { sourceReference: sourceReference || `disb-${this.random.hex(10)}` } : {}),
    };
    if (!this.change(consent, (state) => decideRegisterExtension(state, { extensionEnded: false }, request, creditExtensionId, this.now))) return;
    if (this.random.chance(0.4)) this.agenda.schedule(this.now + this.random.between(1, 10) * DAY, () => this.bind(consent, 'core-loans', reference, 'consent'));
    const ends = this.random.chance(0.45);
    const endAt = this.now + this.random.between(20, 150) * DAY;
    const monthly = () => {
      const active = consent.state.creditExtensions.find((e) => e.creditExtensionId === creditExtensionId)?.status === 'active';
      if (!active) return;
      this.access(consent, 'credit_lifecycle_extension', { reference, objectiveCode });
      this.agenda.schedule(this.now + this.random.between(28, 33) * DAY, monthly);
    };
    this.agenda.schedule(this.now + this.random.between(20, 35) * DAY, monthly);
    if (ends) {
      this.agenda.schedule(endAt, () => {
        const endReason: CreditExtensionEndReason = this.random.weighted([
          { reason: 'obligation_extinguished' as const, weight: 80 },
          { reason: 'superseded_by_new_obligation' as const, weight: 15 },
          { reason: 'acceleration_executed' as const, weight: 5 },
        ]).reason;
        const end =
          endReason === 'superseded_by_new_obligation'
            ? { endReason, supersededByObligationReference: `LN-${consent.tenant.code}-${this.random.digits(10)}` }
            : { endReason };
        this.change(consent, (state) => decideEndExtension(state, consent.profile, creditExtensionId, end, this.now));
      });
    }
  }

  private revoke(consent: ConsentRecord, revokedAt: number): void {
    const channel = consent.state.grant.channel;
    const identityAssurance = channel === 'in_person' && this.random.chance(0.5) ? 'identity_document_verified' : 'client_authenticated';
    const request = { channel, occurredAt: Math.round(revokedAt), sourceType: this.random.chance(0.9) ? ('direct' as const) : ('representative' as const), identityAssurance };
    if (!this.change(consent, (state) => decideRevoke(state, consent.profile, request, this.random.uuid(), this.now))) return;
    if (this.random.chance(0.9)) this.scheduleNotification(consent, 'revoke', this.now);
  }

  /** POST /v1/redec/obligation-bindings, on the obligation's own stream at the revision read. */
  private bind(consent: ConsentRecord | null, sourceSystem: string, obligationReference: string, kind: BindingKind, tenant = consent!.tenant): void {
    const streamId = redecStreams.obligation(tenant.tenantId, sourceSystem, obligationReference);
    const known = this.obligationRevisions.get(streamId) ?? { revision: 'no_stream' as ExpectedRevision, bindings: { bindings: [], annulled: [] } };
    // A consent's obligation is the credit its extension was registered for; another was granted just now.
    const extended = consent?.state.creditExtensions.find((e) => e.creditOperationReference === obligationReference);
    const obligationGrantedAt = extended?.creditGrantedAt ?? this.now;
    const request = { sourceSystem, obligationReference, kind, redecConsentId: kind === 'consent' ? consent!.redecConsentId : null, obligationGrantedAt };
    const bindingId = this.random.timeOrderedId(this.now);
    const decision = decideBind(known.bindings, request, kind === 'consent' ? consent!.state : null, BASELINE_PROFILE, { bindingId }, this.now);
    if (decision.kind !== 'bound') return;
    if (!this.append(streamId, [this.event(decision.event, this.request(tenant), bindingId)], known.revision)) return;
    this.obligationRevisions.set(streamId, { revision: nextRevision(known.revision, 1), bindings: evolveObligationBindings(known.bindings, decision.event) });
  }

  /** Obligations granted before REDEC, or without an applicable consent, bound by the bank; now and then a disagreeing second binding. */
  private legacyBinding(tenant: Tenant): void {
    this.agenda.schedule(this.now + this.random.exp(this.meanArrivalGap(tenant) * 25), () => this.legacyBinding(tenant));
    const reference = `LN-${tenant.code}-${this.random.digits(10)}`;
    const kind: BindingKind = this.random.chance(0.7) ? 'legacy_pre_redec' : 'no_applicable_consent';
    this.bind(null, 'core-loans', reference, kind, tenant);
    if (this.random.chance(0.05)) {
      const other: BindingKind = kind === 'legacy_pre_redec' ? 'no_applicable_consent' : 'legacy_pre_redec';
      this.agenda.schedule(this.now + this.random.between(1, 30) * DAY, () => this.bind(null, 'core-loans', reference, other, tenant));
    }
  }

  /** changeConsent: decide on the consent's current facts, append at the revision read. */
  private change(consent: ConsentRecord, decide: (state: ConsentState) => ConsentEvent[]): boolean {
    const events = decide(consent.state);
    if (events.length === 0) return false;
    const context = this.request(consent.tenant);
    if (!this.append(consent.streamId, events.map((e) => this.event(e, context)), consent.revision)) return false;
    this.record(consent, events);
    return true;
  }

  private record(consent: ConsentRecord, events: ConsentEvent[]): void {
    consent.revision = nextRevision(consent.revision, events.length);
    consent.state = events.reduce((state, e) => evolveConsent(state, e, consent.tenant.tenantId)!, consent.state);
  }
}

function nextRevision(revision: ExpectedRevision, appended: number): number {
  return (revision === 'no_stream' ? -1 : (revision as number)) + appended;
}

/** A RUT as people type it: 12.345.678-5. */
function formatRut(rut: string): string {
  const [body, check] = rut.split('-');
  return `${body.replace(/\B(?=(\d{3})+(?!\d))/g, '.')}-${check}`;
}

export async function generateLedger(options: GenerateLedgerOptions): Promise<GeneratedLedger> {
  const events = options.events ?? DEFAULT_LEDGER_EVENTS;
  if (!Number.isSafeInteger(events) || events < 100) throw new Error(`--events must be an integer of at least 100, not ${events}`);
  const file = resolve(options.file);
  if (existsSync(file)) throw new Error(`${file} exists; the generator writes a new ledger only`);
  const started = process.hrtime.bigint();
  const summary = await new LedgerGenerator(events, { ...options, file }).run();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { file, ...summary, seconds, bytes: statSync(file).size };
}

function parseArgs(argv: string[]): GenerateLedgerOptions {
  const options: Partial<GenerateLedgerOptions> = {};
  for (let i = 0; i < argv.length; i++) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (flag === '--events') options.events = Number(value.replace(/_/g, ''));
    else if (flag === '--file') options.file = value;
    else if (flag === '--seed') options.seed = Number(value);
    else if (flag === '--without-tree') {
      options.merkleTree = false;
      continue;
    } else throw new Error(`unknown argument ${flag}`);
    i++;
  }
  if (!options.file) throw new Error('usage: generate-ledger --file PATH [--events N] [--seed S] [--without-tree]');
  return options as GenerateLedgerOptions;
}

if (require.main === module) {
  (async () => {
    const options = parseArgs(process.argv.slice(2));
    const ledger = await generateLedger({
      ...options,
      onProgress: (written, total) => process.stderr.write(`${written.toLocaleString('en-US')} / ${total.toLocaleString('en-US')} events\n`),
    });
    process.stdout.write(`${JSON.stringify(ledger, null, 2)}\n`);
  })().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
