import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { Pool } from 'pg';
import { LedgerLog, PostgresEventStore, SqliteEventStore, leafOfEvent } from '@ledger/event-store';
import { inclusionProof, rootAt } from '@ledger/ledger-log';
import { createDatabase, databaseUrlFor, dropDatabase } from '@ledger/platform';
import { leafHash, nodeHash, verifyInclusion } from '@ledger/transparency';
import { POSTGRES_SERVER, benchDatabaseName } from './event-store.bench';
import { DEFAULT_LEDGER_EVENTS } from './generate-ledger';
import { copyToPostgres, generateInChildProcess } from './projection-rebuild.bench';
import { median } from './median';

/**
 * The ledger's Merkle tree (decision 0058) over a large ledger written before
 * it: (a) the build that enters every event in the tree when the store opens,
 * beside the bare work any build has to do, measured in the same run (one
 * pass of `readAll` pages over the same events in position order, each
 * event's leaf made and hashed); (b) the latency of an inclusion proof for
 * one event over the whole tree, beside a `readStream` of the same event's
 * stream; (c) with BENCH_LEDGER_LOG_STORES=SQLite,PostgreSQL, the same build
 * on a PostgreSQL copy of the ledger. See bench/README.md.
 */

export const TARGET_BUILD_LEAVES_PER_SECOND = 100_000;
export const TARGET_PROOF_MS = 5;
export const LEDGER_LOG_STORES = ['SQLite', 'PostgreSQL'] as const;

export interface BuildRun {
  seconds: number;
  leavesPerSecond: number;
  /** CPU time (user + system) of this process during the build. */
  processCpuSeconds: number;
  /** Transactions of the build (the store's `logBuildBatch` events each). */
  batches: number;
}

export interface BaselineRun {
  seconds: number;
  eventsPerSecond: number;
  /** Of which inside `readAll` (the store's query and JSON parsing). */
  readSeconds: number;
  /** Of which making and hashing the leaves. */
  hashSeconds: number;
  processCpuSeconds: number;
}

export interface BuildFigures {
  store: (typeof LEDGER_LOG_STORES)[number];
  events: number;
  rounds: BuildRun[];
  baselineRounds: BaselineRun[];
  /** Medians over the rounds. */
  leavesPerSecond: number;
  baselineEventsPerSecond: number;
  /** build / baseline. */
  ratio: number;
  /** The tree's size and root after the build equal those of the leaves made by the baseline. */
  rootEqual: boolean;
  target: number;
  targetMet: boolean;
}

export interface LatencySummary {
  count: number;
  medianMs: number;
  p99Ms: number;
  maxMs: number;
}

export interface ProofFigures {
  size: number;
  proof: LatencySummary;
  /** Hashes in a proof, on average. */
  proofLength: number;
  /** A `readStream` of the same event's stream, measured in turn with each proof. */
  readStream: LatencySummary;
  /** Events in those streams, on average. */
  streamLength: number;
  /** proof median / readStream median. */
  ratio: number;
  /** Every proof verified against the root of the same size. */
  verified: boolean;
  target: number;
  targetMet: boolean;
}

export interface LedgerLogBenchResult {
  ledger: { file: string; events: number; reused: boolean; generatedSeconds: number | null };
  maxSemiSpaceMb: number | null;
  builds: BuildFigures[];
  proofs: ProofFigures;
}

/**
 * BENCH_LEDGER_LOG_EVENTS: the ledger's size (1,000,000). BENCH_LEDGER_LOG_LEDGER:
 * a ledger file written before the tree to reuse, or to generate there and
 * keep (by default a temporary one is generated and deleted); the file is
 * never changed, each build runs on a copy. BENCH_LEDGER_LOG_ROUNDS (3),
 * BENCH_LEDGER_LOG_PROOFS (1,000), BENCH_LEDGER_LOG_STORES (SQLite).
 */
export async function runLedgerLogBench(log: (line: string) => void): Promise<LedgerLogBenchResult> {
  const events = Number((process.env.BENCH_LEDGER_LOG_EVENTS ?? String(DEFAULT_LEDGER_EVENTS)).replace(/_/g, ''));
  const rounds = Number(process.env.BENCH_LEDGER_LOG_ROUNDS ?? '3');
  const proofCount = Number((process.env.BENCH_LEDGER_LOG_PROOFS ?? '1000').replace(/_/g, ''));
  const stores = ledgerLogStores();
  const kept = process.env.BENCH_LEDGER_LOG_LEDGER ? resolve(process.env.BENCH_LEDGER_LOG_LEDGER) : undefined;
  const dir = mkdtempSync(join(tmpdir(), 'ledger-bench-log-'));
  const source = kept ?? join(dir, 'ledger.sqlite');
  try {
    const ledger = await prepareLedger(source, events, kept !== undefined, log);
    const builds: BuildFigures[] = [];
    let proofs: ProofFigures | undefined;
    if (stores.includes('SQLite')) {
      const copy = join(dir, 'copy.sqlite');
      const runs: BuildRun[] = [];
      const baselines: BaselineRun[] = [];
      let rootEqual = true;
      for (let round = 0; round < rounds; round += 1) {
        // Outside the clock: a fresh copy of the ledger as written before the tree (and its pages in the page cache).
        removeSqlite(copy);
        log(`ledger log: copying the ledger for round ${round + 1} of ${rounds}...`);
        copyFileSync(source, copy);
        log('ledger log: baseline, readAll pages of 1000 with every leaf made and hashed...');
        const { run: baseline, root: expectedRoot } = await measureBaseline(new SqliteEventStore(copy, { merkleTree: false }), events);
        baselines.push(baseline);
        log(`ledger log: baseline ${baseline.seconds.toFixed(1)} s; building the tree of the SQLite store...`);
        let store: SqliteEventStore | undefined;
        const build = measureBuildSync(events, log, (onLogBuild) => (store = new SqliteEventStore(copy, { onLogBuild })));
        runs.push(build);
        log(`ledger log: build ${build.seconds.toFixed(1)} s, ${Math.round(build.leavesPerSecond).toLocaleString('en-US')} leaves/s`);
        const built = store!;
        rootEqual &&= (await built.log.size()) === events && (await rootAt(built.log, events)).equals(expectedRoot);
        if (round === rounds - 1) {
          log(`ledger log: ${proofCount} inclusion proofs over the ${events.toLocaleString('en-US')}-leaf tree, each beside a readStream...`);
          proofs = await measureProofs(built, built.log, proofCount);
        }
        await built.close();
      }
      removeSqlite(copy);
      builds.push(buildFigures('SQLite', events, runs, baselines, rootEqual));
    }
    if (stores.includes('PostgreSQL')) builds.push(await measurePostgresBuild(source, events, rounds, log));
    if (proofs === undefined) throw new Error('the inclusion proofs are measured on SQLite: BENCH_LEDGER_LOG_STORES must include it');
    return { ledger: { file: source, ...ledger }, maxSemiSpaceMb: maxSemiSpaceMb(), builds, proofs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** BENCH_LEDGER_LOG_STORES: SQLite (the default), PostgreSQL, or both. */
function ledgerLogStores(): Array<(typeof LEDGER_LOG_STORES)[number]> {
  const asked = (process.env.BENCH_LEDGER_LOG_STORES ?? 'SQLite').split(',').map((name) => name.trim());
  const unknown = asked.filter((name) => !(LEDGER_LOG_STORES as readonly string[]).includes(name));
  if (unknown.length > 0) throw new Error(`BENCH_LEDGER_LOG_STORES: unknown store ${unknown.join(', ')}; known: ${LEDGER_LOG_STORES.join(', ')}`);
  return asked as Array<(typeof LEDGER_LOG_STORES)[number]>;
}

/** Generates a ledger without the tree, or checks that a kept one was written before it. Not part of any figure. */
async function prepareLedger(file: string, events: number, keep: boolean, log: (line: string) => void): Promise<Omit<LedgerLogBenchResult['ledger'], 'file'>> {
  if (keep && existsSync(file)) {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      const head = (db.prepare('SELECT COALESCE(MAX(position), 0) FROM events').pluck().get() as number) ?? 0;
      const hasLeaves = (db.prepare("SELECT COUNT(*) FROM sqlite_master WHERE name = 'log_leaves'").pluck().get() as number) > 0;
      const leaved = hasLeaves ? (db.prepare('SELECT COUNT(*) FROM log_leaves').pluck().get() as number) : 0;
      if (head !== events) throw new Error(`${file} holds ${head} events, not BENCH_LEDGER_LOG_EVENTS=${events}; delete it or change one of them`);
      if (leaved > 0) {
        throw new Error(`${file} has ${leaved} events in the tree already (a store with the tree opened it); the build needs a ledger written before the tree`);
      }
    } finally {
      db.close();
    }
    log(`ledger log: reusing the ledger in ${file} (${events.toLocaleString('en-US')} events, none in the tree)`);
    return { events, reused: true, generatedSeconds: null };
  }
  log(`ledger log: generating a ledger of ${events.toLocaleString('en-US')} events without the tree in ${file}...`);
  const ledger = await generateInChildProcess(file, events, log, { label: 'ledger log', merkleTree: false });
  return { events: ledger.events, reused: false, generatedSeconds: ledger.seconds };
}

/**
 * The bare work of a build: every event read once in position order
 * (`readAll` pages of 1000) and its leaf made and hashed, nothing written.
 * Returns the root of those leaves too, to check the build's against.
 */
async function measureBaseline(store: SqliteEventStore | PostgresEventStore, events: number): Promise<{ run: BaselineRun; root: Buffer }> {
  await store.headPosition();
  const hashes: Buffer[] = [];
  let readNanos = 0n;
  let hashNanos = 0n;
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  for (let after = 0; ; ) {
    const readStarted = process.hrtime.bigint();
    const page = await store.readAll({ after, maxCount: 1000 });
    const hashStarted = process.hrtime.bigint();
    readNanos += hashStarted - readStarted;
    if (page.length === 0) break;
    for (const event of page) hashes.push(leafHash(leafOfEvent(event)));
    hashNanos += process.hrtime.bigint() - hashStarted;
    after = page[page.length - 1].position;
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const used = process.cpuUsage(cpu);
  await store.close();
  if (hashes.length !== events) throw new Error(`the baseline read ${hashes.length} events, not ${events}`);
  return {
    run: {
      seconds,
      eventsPerSecond: events / seconds,
      readSeconds: Number(readNanos) / 1e9,
      hashSeconds: Number(hashNanos) / 1e9,
      processCpuSeconds: (used.user + used.system) / 1e6,
    },
    root: mth(hashes),
  };
}

/** RFC 6962's MTH over leaf hashes, level by level (an odd node is carried up). */
function mth(level: Buffer[]): Buffer {
  if (level.length === 0) throw new Error('no leaves');
  let nodes = level;
  while (nodes.length > 1) {
    const next: Buffer[] = [];
    for (let i = 0; i + 1 < nodes.length; i += 2) next.push(nodeHash(nodes[i], nodes[i + 1]));
    if (nodes.length % 2 === 1) next.push(nodes[nodes.length - 1]);
    nodes = next;
  }
  return nodes[0];
}

/** The SQLite store builds its tree synchronously, in its constructor. */
function measureBuildSync(events: number, log: (line: string) => void, open: (onLogBuild: (p: { entered: number; remaining: number }) => void) => void): BuildRun {
  let batches = 0;
  let lastLogged = process.hrtime.bigint();
  const onLogBuild = ({ entered }: { entered: number; remaining: number }) => {
    batches += 1;
    const now = process.hrtime.bigint();
    if (now - lastLogged < 10_000_000_000n) return;
    lastLogged = now;
    log(`ledger log: built ${entered.toLocaleString('en-US')} / ${events.toLocaleString('en-US')} leaves`);
  };
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  open(onLogBuild);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const used = process.cpuUsage(cpu);
  return { seconds, leavesPerSecond: events / seconds, processCpuSeconds: (used.user + used.system) / 1e6, batches };
}

/**
 * Inclusion proofs for random events of the tree, each timed alone
 * (`inclusionProof(store.log, leafIndex, size)`), in turn with a
 * `readStream` of the same event's stream; then every proof is checked
 * against the root of the same size, outside the clock.
 */
async function measureProofs(store: SqliteEventStore, ledgerLog: LedgerLog, count: number): Promise<ProofFigures> {
  const size = await ledgerLog.size();
  const head = await store.headPosition();
  // Outside the clock: the sampled events, their streams and their leaves.
  const samples: Array<{ streamId: string; leafIndex: number; leaf: Buffer }> = [];
  while (samples.length < count) {
    const position = 1 + Math.floor(Math.random() * head);
    const [event] = await store.readAll({ after: position - 1, maxCount: 1 });
    const [leaf] = await ledgerLog.leavesOf([event.id]);
    samples.push({ streamId: event.streamId, leafIndex: leaf.leafIndex, leaf: leaf.leaf });
  }
  // Warm-up, untimed: the statements' first runs and the upper levels' pages.
  for (const { streamId, leafIndex } of samples.slice(0, 50)) {
    await inclusionProof(ledgerLog, leafIndex, size);
    await store.readStream(streamId);
  }
  const proofMs: number[] = [];
  const readMs: number[] = [];
  const proofs: Buffer[][] = [];
  let streamEvents = 0;
  for (let i = 0; i < samples.length; i += 1) {
    const { streamId, leafIndex } = samples[i];
    const proofFirst = i % 2 === 0;
    if (!proofFirst) streamEvents += await timed(readMs, async () => (await store.readStream(streamId)).length);
    proofs.push(await timed(proofMs, () => inclusionProof(ledgerLog, leafIndex, size)));
    if (proofFirst) streamEvents += await timed(readMs, async () => (await store.readStream(streamId)).length);
  }
  const root = await rootAt(ledgerLog, size);
  let verified = true;
  samples.forEach(({ leafIndex, leaf }, i) => {
    try {
      verifyInclusion(leafIndex, size, leafHash(leaf), proofs[i], root);
    } catch {
      verified = false;
    }
  });
  const proof = summarize(proofMs);
  const readStream = summarize(readMs);
  return {
    size,
    proof,
    proofLength: proofs.reduce((sum, p) => sum + p.length, 0) / proofs.length,
    readStream,
    streamLength: streamEvents / samples.length,
    ratio: proof.medianMs / readStream.medianMs,
    verified,
    target: TARGET_PROOF_MS,
    targetMet: verified && proof.medianMs < TARGET_PROOF_MS && proof.p99Ms < TARGET_PROOF_MS,
  };
}

async function timed<T>(into: number[], work: () => Promise<T>): Promise<T> {
  const started = process.hrtime.bigint();
  const result = await work();
  into.push(Number(process.hrtime.bigint() - started) / 1e6);
  return result;
}

/**
 * The same build on a PostgreSQL copy of the ledger (copied once, outside the
 * clock, into a database of its own): each round empties the tree's columns
 * and kept hashes, then the baseline and the build run on the same rows. Only
 * with BENCH_LEDGER_LOG_STORES including PostgreSQL: the copy takes minutes.
 */
async function measurePostgresBuild(source: string, events: number, rounds: number, log: (line: string) => void): Promise<BuildFigures> {
  const name = benchDatabaseName();
  const url = databaseUrlFor(POSTGRES_SERVER, name);
  await createDatabase(POSTGRES_SERVER, name);
  try {
    log(`ledger log: copying the ledger into PostgreSQL database ${name} (not part of any figure)...`);
    await copyToPostgres(source, url, log, 'ledger log');
    const runs: BuildRun[] = [];
    const baselines: BaselineRun[] = [];
    let rootEqual = true;
    for (let round = 0; round < rounds; round += 1) {
      if (round > 0) await forgetPostgresTree(url);
      log(`ledger log: PostgreSQL round ${round + 1} of ${rounds}, baseline...`);
      const { run: baseline, root: expectedRoot } = await measureBaseline(new PostgresEventStore(url, { merkleTree: false }), events);
      baselines.push(baseline);
      log(`ledger log: PostgreSQL baseline ${baseline.seconds.toFixed(1)} s; building the tree...`);
      let batches = 0;
      const cpu = process.cpuUsage();
      const started = process.hrtime.bigint();
      const store = new PostgresEventStore(url, { onLogBuild: () => (batches += 1) });
      await store.opened();
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const used = process.cpuUsage(cpu);
      runs.push({ seconds, leavesPerSecond: events / seconds, processCpuSeconds: (used.user + used.system) / 1e6, batches });
      log(`ledger log: PostgreSQL build ${seconds.toFixed(1)} s, ${Math.round(events / seconds).toLocaleString('en-US')} leaves/s`);
      rootEqual &&= (await store.log.size()) === events && (await rootAt(store.log, events)).equals(expectedRoot);
      await store.close();
    }
    return buildFigures('PostgreSQL', events, runs, baselines, rootEqual);
  } finally {
    await dropDatabase(POSTGRES_SERVER, name);
  }
}

/** Between PostgreSQL rounds, outside the clock: the ledger as before the tree again. */
async function forgetPostgresTree(url: string): Promise<void> {
  const pool = new Pool({ connectionString: url, max: 1 });
  try {
    await pool.query('DELETE FROM log_leaves');
    await pool.query('DELETE FROM log_subtrees');
    await pool.query('UPDATE log_tree SET size = 0');
    await pool.query('VACUUM ANALYZE log_leaves');
  } finally {
    await pool.end();
  }
}

function buildFigures(store: BuildFigures['store'], events: number, rounds: BuildRun[], baselineRounds: BaselineRun[], rootEqual: boolean): BuildFigures {
  const leavesPerSecond = median(rounds.map((r) => r.leavesPerSecond));
  const baselineEventsPerSecond = median(baselineRounds.map((r) => r.eventsPerSecond));
  return {
    store,
    events,
    rounds,
    baselineRounds,
    leavesPerSecond,
    baselineEventsPerSecond,
    ratio: leavesPerSecond / baselineEventsPerSecond,
    rootEqual,
    target: TARGET_BUILD_LEAVES_PER_SECOND,
    targetMet: rootEqual && leavesPerSecond >= TARGET_BUILD_LEAVES_PER_SECOND,
  };
}

function removeSqlite(file: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
}

function summarize(values: number[]): LatencySummary {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  return { count: sorted.length, medianMs: median(sorted), p99Ms: at(0.99), maxMs: sorted[sorted.length - 1] };
}

function maxSemiSpaceMb(): number | null {
  const flag = process.execArgv.find((arg) => arg.startsWith('--max-semi-space-size='));
  return flag === undefined ? null : Number(flag.split('=')[1]);
}
