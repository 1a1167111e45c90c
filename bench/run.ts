import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { ScenarioResult, TARGET_TREE_RATIO_64_WRITERS, runEventStoreBench, runPostgresEventStoreBench } from './event-store.bench';
import { BodiesInFlightResult, ReadFigures, TARGET_OTHER_TENANT_SLOWEST_READ_MS, TARGET_PEAK_RSS_MB, runBodiesInFlightBench } from './bodies-in-flight.bench';
import { BuildFigures, LedgerLogBenchResult, runLedgerLogBench } from './ledger-log.bench';
import { CatchUpResult, LoadFigures, runCatchUpBench } from './catch-up.bench';
import { HttpBenchResult, REFERENCES, RouteFigures, runHttpBench } from './http.bench';
import { DIGEST_ALLOWANCE, ProjectionRebuildResult, REBUILD_STORES, runProjectionRebuildBench } from './projection-rebuild.bench';
import { LatencySummary, TARGET_P95_MS, WebhookLatencyResult, runWebhookLatencyBench } from './webhook-latency.bench';
import { SCALE_TARGETS, ScalePoint, ScaleResult, runScaleBench } from './scale.bench';

/**
 * `npm run bench`: runs every benchmark, prints a summary on stdout (progress
 * on stderr) and writes the figures to bench/results/. Names given after
 * `--` run only those benchmarks: `npm run bench -- webhook-latency`.
 */
const TARGET_RATIO_64_WRITERS = 0.7;
const BENCHMARKS = ['event-store', 'ledger-log', 'webhook-latency', 'projection-rebuild', 'http', 'catch-up', 'bodies-in-flight', 'scale'] as const;

const log = (line: string) => process.stderr.write(`${line}\n`);

async function main(): Promise<void> {
  const asked = process.argv.slice(2);
  const unknown = asked.filter((name) => !(BENCHMARKS as readonly string[]).includes(name));
  if (unknown.length > 0) throw new Error(`unknown benchmark ${unknown.join(', ')}; known: ${BENCHMARKS.join(', ')}`);
  const runs = (name: (typeof BENCHMARKS)[number]) => asked.length === 0 || asked.includes(name);

  if (runs('event-store')) {
    // BENCH_EVENT_STORE_STORES=PostgreSQL (or SQLite) measures one store only, while tuning.
    const stores = process.env.BENCH_EVENT_STORE_STORES ?? 'SQLite,PostgreSQL';
    const results = stores.includes('SQLite') ? await runEventStoreBench(log) : [];
    if (results.length > 0) process.stdout.write(eventStoreSummary('SQLite event store, durable appends (WAL, synchronous=FULL)', results));
    const postgres = stores.includes('PostgreSQL') ? await runPostgresEventStoreBench(log) : [];
    if (postgres.length > 0) process.stdout.write(eventStoreSummary('PostgreSQL event store, durable appends (synchronous_commit=on; raw: pg, one connection per writer)', postgres, results));
    writeResults('event-store.json', { scenarios: results, postgres });
  }
  if (runs('ledger-log')) {
    const result = await runLedgerLogBench(log);
    process.stdout.write(ledgerLogSummary(result));
    writeResults('ledger-log.json', result);
    // A tree whose root is not the one of the same leaves, or a proof that does not verify, is a failure of the run.
    if (!result.proofs.verified || result.builds.some((b) => !b.rootEqual)) process.exitCode = 1;
  }
  if (runs('webhook-latency')) {
    const result = await runWebhookLatencyBench(log);
    process.stdout.write(webhookLatencySummary(result));
    writeResults('webhook-latency.json', result);
    // Losing or repeating a delivery is a failure of the run, not a slow figure.
    if (!result.nothingLost) process.exitCode = 1;
  }
  if (runs('projection-rebuild')) {
    for (const on of rebuildStores()) {
      const result = await runProjectionRebuildBench(log, { on });
      process.stdout.write(projectionRebuildSummary(result));
      writeResults(on === 'SQLite' ? 'projection-rebuild.json' : 'projection-rebuild-postgres.json', result);
      // A rebuild that is not deterministic, or models that miss facts, is a failure of the run, not a slow figure.
      if (!result.digestsEqual || !result.documentsAsExpected) process.exitCode = 1;
    }
  }
  if (runs('http')) {
    const result = await runHttpBench(log);
    process.stdout.write(httpSummary(result));
    writeResults('http.json', result);
    // A route that errors or answers an unexpected status is a failure of the run, not a slow figure.
    if (result.failed) process.exitCode = 1;
  }
  if (runs('catch-up')) {
    const result = await runCatchUpBench(log);
    process.stdout.write(catchUpSummary(result));
    writeResults('catch-up.json', result);
  }
  if (runs('bodies-in-flight')) {
    const result = await runBodiesInFlightBench(log);
    process.stdout.write(bodiesInFlightSummary(result));
    writeResults('bodies-in-flight.json', result);
    // An acknowledged grant that cannot be read back, or an answer other than 201 or 503, is a failure of the run.
    if (result.failed) process.exitCode = 1;
  }
  if (runs('scale')) {
    const result = await runScaleBench(log);
    process.stdout.write(scaleSummary(result));
    writeResults('scale.json', result);
    // A route that errors or answers an unexpected status is a failure of the run, not a slow figure.
    if (result.failed) process.exitCode = 1;
  }
}

/** One table per store: a row per figure, a column per ledger size; then each target, at the largest size against 0 events. */
function scaleSummary(result: ScaleResult): string {
  const lines = [`\n## The service as its ledger grows (routes at ${result.connections} connections, ${result.seconds} s each)`];
  for (const store of [...new Set(result.points.map((p) => p.store))]) {
    const points = result.points.filter((p) => p.store === store);
    const row = (label: string, cell: (p: ScalePoint) => string) => `${label.padEnd(40)}${points.map((p) => cell(p).padStart(22)).join('')}`;
    const perUnit = (bytes: number, units: number) => (units === 0 ? '-' : `${Math.round(bytes / units).toLocaleString('en-US')} B`);
    lines.push(
      `${store}:`,
      row('ledger events', (p) => p.events.toLocaleString('en-US')),
      row('start to ready, empty Redis', (p) => `${p.emptyRedisToReadySeconds.toFixed(1)} s`),
      row('start to ready, existing read model', (p) => `${p.existingModelToReadySeconds.toFixed(1)} s`),
      row('RSS after start / catch-up / load (MB)', (p) => [p.rssMb.afterStart, p.rssMb.afterCatchUp, p.rssMb.afterLoad].map((mb) => mb.toFixed(0)).join(' / ')),
      row('Redis read model (used_memory growth)', (p) => `${(p.redisBytes / 1e6).toFixed(1)} MB`),
      row('  per event', (p) => perUnit(p.redisBytes, p.events)),
      row('  per consent', (p) => perUnit(p.redisBytes, p.consents)),
      row('  per access decision', (p) => perUnit(p.redisBytes, p.accessDecisions)),
      ...points[0].routes.map((route, i) => row(`${route.route} p50 / p99`, (p) => `${ms(p.routes[i].p50Ms).trim()} / ${ms(p.routes[i].p99Ms).trim()}`)),
      row('appends at 64 writers', (p) => `${format(p.appendsPerSecond).trim()} ev/s`),
      row('rebuild / its baseline', (p) => (p.rebuildRatio === null ? '-' : p.rebuildRatio.toFixed(2))),
    );
    const empty = points.find((p) => p.events === 0);
    const largest = points.reduce((a, b) => (b.events > a.events ? b : a));
    if (!empty || largest === empty) continue;
    const verdict = (met: boolean) => (met ? 'met' : 'NOT met');
    const at = `at ${largest.events.toLocaleString('en-US')} events`;
    for (const [i, route] of largest.routes.entries()) {
      const growth = route.p99Ms / Math.max(1, empty.routes[i].p99Ms);
      // A route that answered nothing in its window shows latencies of 0: it is the worst case, not the best.
      const figure = route.answered === 0 ? 'no request answered within the window' : `${growth.toFixed(2)}x`;
      lines.push(`target: ${route.route} p99 ${at} <= ${SCALE_TARGETS.p99Growth}x of 0 events: ${verdict(route.answered > 0 && growth <= SCALE_TARGETS.p99Growth)} (${figure})`);
    }
    const appendRatio = largest.appendsPerSecond / empty.appendsPerSecond;
    const rss = Math.max(largest.rssMb.afterStart, largest.rssMb.afterCatchUp, largest.rssMb.afterLoad);
    const perEvent = largest.redisBytes / largest.events;
    lines.push(
      `target: appends ${at} >= ${SCALE_TARGETS.appendRatio} of the empty store's: ${verdict(appendRatio >= SCALE_TARGETS.appendRatio)} (${appendRatio.toFixed(2)})`,
      `target: RSS ${at} <= ${SCALE_TARGETS.rssMb} MB: ${verdict(rss <= SCALE_TARGETS.rssMb)} (${rss.toFixed(0)} MB)`,
      `target: Redis ${at} <= ${SCALE_TARGETS.redisBytesPerEvent} bytes per event: ${verdict(perEvent <= SCALE_TARGETS.redisBytesPerEvent)} (${perEvent.toFixed(0)})`,
      largest.rebuildRatio === null
        ? `target: rebuild >= ${SCALE_TARGETS.rebuildRatio} of its baseline ${at}: not measured (BENCH_SCALE_REBUILD_MAX_EVENTS)`
        : `target: rebuild >= ${SCALE_TARGETS.rebuildRatio} of its baseline ${at}: ${verdict(largest.rebuildRatio >= SCALE_TARGETS.rebuildRatio)} (${largest.rebuildRatio.toFixed(2)})`,
    );
  }
  lines.push(result.failed ? 'FAILED: a route answered an error or a non-2xx status, or nothing within its window' : 'every answer 2xx, no errors', '');
  return lines.join('\n');
}

function catchUpSummary(result: CatchUpResult): string {
  const figures = (f: LoadFigures) => `${Math.round(f.requestsPerSecond).toLocaleString('en-US')} req/s, p50 ${ms(f.p50Ms)}, p99 ${ms(f.p99Ms)}, slowest ${ms(f.maxMs)}`;
  return [
    `\n## Requests while the read model catches up with ${result.ledgerEvents.toLocaleString('en-US')} events (GET /health/live, ${result.connections} connections, ${result.seconds} s each)`,
    `during the catch-up: ${figures(result.during)}${result.windowWithinCatchUp ? '' : ' (the catch-up ended within the window)'}`,
    `once ready (baseline): ${figures(result.after)}`,
    `during / baseline: ${(result.during.requestsPerSecond / result.after.requestsPerSecond).toFixed(2)} of the throughput; ready ${result.catchUpSeconds.toFixed(1)} s after listening`,
    '',
  ].join('\n');
}

function bodiesInFlightSummary(result: BodiesInFlightResult): string {
  const reads = (r: ReadFigures) => `${r.reads} reads, p50 ${ms(r.p50Ms)}, p99 ${ms(r.p99Ms)}, slowest ${ms(r.slowestMs)}`;
  const lines = [
    `\n## Bodies in flight: 15 MB evidence uploads by one tenant, another tenant reading (LEDGER_MAX_BODY_BYTES_IN_FLIGHT ${result.maxBytesInFlight})`,
    `RSS after start ${result.rssAfterStartMb.toFixed(0)} MB; the other tenant's reads alone: ${reads(result.baseline)}`,
    ...result.bursts.map(
      (b) =>
        `${String(b.uploads).padStart(3)} uploads at once: ${b.grantedAtOnce} granted at once, ${b.refused503} answers 503 retried, all granted ${b.allGranted}, read back ${b.everyGrantReadBack}, ${b.seconds.toFixed(1)} s; ` +
        `peak RSS ${b.peakRssMb.toFixed(0)} MB (target < ${TARGET_PEAK_RSS_MB}); other tenant: ${reads(b.reads)} (p99 ratio to alone ${b.readP99Ratio.toFixed(2)}; target slowest < ${TARGET_OTHER_TENANT_SLOWEST_READ_MS} ms)`,
    ),
  ];
  return `${lines.join('\n')}\n`;
}

/** BENCH_REBUILD_STORES: SQLite, PostgreSQL or both (comma-separated; both by default). */
function rebuildStores(): Array<(typeof REBUILD_STORES)[number]> {
  const asked = (process.env.BENCH_REBUILD_STORES ?? REBUILD_STORES.join(',')).split(',').map((name) => name.trim());
  const unknown = asked.filter((name) => !(REBUILD_STORES as readonly string[]).includes(name));
  if (unknown.length > 0) throw new Error(`BENCH_REBUILD_STORES: unknown store ${unknown.join(', ')}; known: ${REBUILD_STORES.join(', ')}`);
  return asked as Array<(typeof REBUILD_STORES)[number]>;
}

function httpSummary(result: HttpBenchResult): string {
  const row = (r: RouteFigures) =>
    `${r.route.padEnd(34)} ${String(r.connections).padStart(4)}  ${format(r.requestsPerSecond)} req/s  p50 ${ms(r.p50Ms).padStart(8)}  p99 ${ms(r.p99Ms).padStart(8)}  p99.9 ${ms(r.p999Ms).padStart(8)}  ` +
    `errors ${r.errors}  non-2xx ${r.non2xx}  ratio ${r.ratio.toFixed(3)}  cpu/request ${r.cpuMicrosPerRequest.toFixed(0).padStart(5)} us (ratio ${r.cpuRatio.toFixed(3)})`;
  const memory = result.memory
    ? `memory over a ledger of ${result.memory.ledgerEvents.toLocaleString('en-US')} events: RSS after start ${result.memory.afterStartMb.toFixed(0)} MB, ` +
      `after load ${result.memory.afterLoadMb.toFixed(0)} MB, after a rebuild ${result.memory.afterRebuildMb.toFixed(0)} MB (target <= 250 MB: ` +
      `${Math.max(result.memory.afterStartMb, result.memory.afterLoadMb, result.memory.afterRebuildMb) <= 250 ? 'met' : 'NOT met'})`
    : 'memory over a generated ledger: not measured (BENCH_HTTP_LEDGER_EVENTS=0)';
  return [
    `HTTP request path, built service beside a Fastify hello-world, ${result.durationSeconds} s per route (route, connections, throughput, latency, ratio to hello-world)`,
    ...result.routes.map(row),
    'scaling:',
    ...result.scaling.map(row),
    ...referenceLines(result.routes),
    ...result.targets.map(
      (t) =>
        `target: ${t.route} >= ${t.ratio.toFixed(2)} of the ${t.reference}, p99 <= ${t.p99Ms} ms: ${t.met ? 'met' : 'NOT met'} ` +
        `(${t.measuredRatio.toFixed(2)}, p99 ${ms(t.measuredP99Ms).trim()})`,
    ),
    memory,
    result.failed ? 'FAILED: a route answered an error or a non-2xx status' : 'every answer 2xx, no errors',
    '',
  ].join('\n');
}

/** Each route beside its reference of bench/bare-service.ts, when both ran. */
function referenceLines(routes: RouteFigures[]): string[] {
  return REFERENCES.flatMap(({ route: name, reference: referenceName }) => {
    const route = routes.find((r) => r.route === name);
    const reference = routes.find((r) => r.route === referenceName);
    if (!route || !reference) return [];
    return [
      `reference: ${name} beside the ${referenceName}: ${(route.requestsPerSecond / reference.requestsPerSecond).toFixed(2)} of its throughput, ` +
        `${(reference.cpuMicrosPerRequest / route.cpuMicrosPerRequest).toFixed(2)} of its CPU per request; the reference at ${reference.ratio.toFixed(3)} of hello-world`,
    ];
  });
}

/** With `beside`, each line also gives the store's throughput relative to the same scenario there (PostgreSQL beside SQLite). */
function eventStoreSummary(title: string, results: ScenarioResult[], beside?: ScenarioResult[]): string {
  const lines = results.map(
    (r) =>
      `${r.name.padEnd(36)} store ${format(r.storeEventsPerSecond)} ev/s   raw ${format(r.rawEventsPerSecond)} ev/s   ` +
      `ratio ${r.ratio.toFixed(2)}   appends/tx ${r.appendsPerTransaction.toFixed(1)}   ` +
      `cpu/event store ${r.storeCpuMicrosPerEvent.toFixed(0)} us, raw ${r.rawCpuMicrosPerEvent.toFixed(0)} us` +
      relativeTo(r, beside),
  );
  const treeLines = results.map(
    (r) =>
      `${r.name.padEnd(36)} with tree ${format(r.storeEventsPerSecond)} ev/s   without ${format(r.withoutTreeEventsPerSecond)} ev/s   ` +
      `with tree / without tree ${r.treeRatio.toFixed(2)}   appends/tx ${r.appendsPerTransaction.toFixed(1)} / ${r.withoutTreeAppendsPerTransaction.toFixed(1)}   ` +
      `cpu/event ${r.storeCpuMicrosPerEvent.toFixed(0)} / ${r.withoutTreeCpuMicrosPerEvent.toFixed(0)} us\n` +
      `${''.padEnd(36)} integration afterwards ${format(r.integrationLeavesPerSecond)} leaves/s, cpu/leaf ${r.integrationCpuMicrosPerLeaf.toFixed(1)} us; ` +
      `appends and integration / without tree ${r.treeRatioWithIntegration.toFixed(2)}`,
  );
  const writers64 = results.find((r) => r.writers === 64 && r.batchSize === 1);
  const met = writers64 !== undefined && writers64.ratio >= TARGET_RATIO_64_WRITERS;
  const treeMet = writers64 !== undefined && writers64.treeRatio >= TARGET_TREE_RATIO_64_WRITERS;
  return [
    title,
    ...lines,
    `target: 64 writers >= ${TARGET_RATIO_64_WRITERS.toFixed(2)} of raw: ${met ? 'met' : 'NOT met'}` + (writers64 ? ` (${writers64.ratio.toFixed(2)})` : ''),
    "the ledger's Merkle tree: the store (with it, the default) beside the same store with merkleTree: false, same run",
    ...treeLines,
    `target: 64 writers, with tree / without tree >= ${TARGET_TREE_RATIO_64_WRITERS.toFixed(2)}: ${treeMet ? 'met' : 'NOT met'}` +
      (writers64 ? ` (${writers64.treeRatio.toFixed(2)})` : ''),
    '',
  ].join('\n');
}

function relativeTo(r: ScenarioResult, beside: ScenarioResult[] | undefined): string {
  const other = beside?.find((b) => b.name === r.name);
  return other ? `   store / SQLite store ${(r.storeEventsPerSecond / other.storeEventsPerSecond).toFixed(2)}` : '';
}

function ledgerLogSummary(r: LedgerLogBenchResult): string {
  const s = (seconds: number) => `${seconds.toFixed(1)} s`.padStart(8);
  const build = (b: BuildFigures) => [
    ...b.rounds.map(
      (run, i) =>
        `build (${b.store}), round ${i + 1}: ${s(run.seconds)}  ${format(run.leavesPerSecond)} leaves/s   CPU this process ${s(run.processCpuSeconds).trim()}, ${run.batches} transactions`,
    ),
    ...b.baselineRounds.map(
      (run, i) =>
        `baseline (${b.store}), round ${i + 1}: ${s(run.seconds)}  ${format(run.eventsPerSecond)} events/s   (readAll ${s(run.readSeconds).trim()}, ` +
        `leaves made and hashed ${s(run.hashSeconds).trim()}; CPU ${s(run.processCpuSeconds).trim()})`,
    ),
    `ratio (${b.store}): build / baseline = ${b.ratio.toFixed(2)}   (${format(b.leavesPerSecond).trim()} leaves/s / ${format(b.baselineEventsPerSecond).trim()} events/s; medians of ${b.rounds.length} rounds)`,
    `root (${b.store}): the built tree's size and root equal those of the baseline's leaves: ${b.rootEqual ? 'yes' : 'NO (the run fails)'}`,
    `target (${b.store}): build >= ${format(b.target).trim()} leaves/s: ${b.targetMet ? 'met' : 'NOT met'} (${format(b.leavesPerSecond).trim()})`,
  ];
  const p = r.proofs;
  const latency = (label: string, l: LedgerLogBenchResult['proofs']['proof']) =>
    `${label.padEnd(44)} median ${ms(l.medianMs).padStart(9)}   p99 ${ms(l.p99Ms).padStart(9)}   max ${ms(l.maxMs).padStart(9)}   (${l.count})`;
  return [
    '',
    `Ledger log (decision 0058): the Merkle tree's build over ${r.ledger.events.toLocaleString('en-US')} events written before it, when the store opens, ` +
      'beside readAll pages with every leaf made and hashed (the bare work of a build); inclusion proofs over the whole tree beside readStream',
    `ledger: ${r.ledger.reused ? `reused (${r.ledger.file})` : `generated without the tree in ${s(r.ledger.generatedSeconds ?? 0).trim()} (not part of any figure)`}; ` +
      (r.maxSemiSpaceMb === null ? "node: V8's default young generation" : `node: --max-semi-space-size=${r.maxSemiSpaceMb}`),
    ...r.builds.flatMap(build),
    `inclusion proofs over ${p.size.toLocaleString('en-US')} leaves, random events, ${p.proofLength.toFixed(1)} hashes each on average:`,
    latency('  inclusionProof(store.log, i, size)', p.proof),
    latency(`  baseline: readStream (${p.streamLength.toFixed(1)} events on average)`, p.readStream),
    `  ratio: proof median / readStream median = ${p.ratio.toFixed(2)}; every proof verified against rootAt(size): ${p.verified ? 'yes' : 'NO (the run fails)'}`,
    `target: inclusion proof < ${p.target} ms (median and p99): ${p.targetMet ? 'met' : 'NOT met'} (median ${ms(p.proof.medianMs)}, p99 ${ms(p.proof.p99Ms)})`,
    '',
  ].join('\n');
}

function webhookLatencySummary(r: WebhookLatencyResult): string {
  const c = r.counts;
  const row = (label: string, s: LatencySummary) =>
    `${label.padEnd(44)}${[s.p50, s.p95, s.p99, s.max].map((v) => ms(v).padStart(10)).join('')}`;
  const stages = Object.entries(r.stagesMs).map(([stage, s]) => `  ${stage.padEnd(48)}${ms(s.p50).padStart(10)}${ms(s.p95).padStart(10)}`);
  return [
    '',
    `Webhook latency: grant -> redec.notification.required at a loopback receiver, ${r.grantsPerSecond} grants/s open loop, ` +
      `${r.measuredGrants} measured after ${r.warmupGrants} warm-up`,
    `${''.padEnd(44)}${['p50', 'p95', 'p99', 'max'].map((h) => h.padStart(10)).join('')}`,
    row('grant response (due -> 201 at client)', r.grantResponseMs),
    row('grant-to-delivery (due -> body at receiver)', r.grantToDeliveryMs),
    row('baseline: signed POST, same body (round trip)', r.baselinePostRoundTripMs),
    `ratio: grant-to-delivery p95 / (grant response p95 + baseline POST p95) = ${r.ratio.toFixed(2)}` +
      `   (${ms(r.grantToDeliveryMs.p95)} / (${ms(r.grantResponseMs.p95)} + ${ms(r.baselinePostRoundTripMs.p95)}))`,
    `delivered before the grant's 201 reached the client: ${r.deliveredBeforeResponse} of ${r.grantToDeliveryMs.count}`,
    `where the time goes (service stamps, 1 ms resolution)${'p50'.padStart(14)}${'p95'.padStart(10)}`,
    ...stages,
    `service thread: busy ${(r.serviceThreadUtilization * 100).toFixed(0)}%, event-loop delay p50 ${ms(r.eventLoopDelayMs.p50)}, ` +
      `p99 ${ms(r.eventLoopDelayMs.p99)}, max ${ms(r.eventLoopDelayMs.max)}; process CPU ${r.processCpuCores.toFixed(2)} cores; ` +
      (r.storePerGrant ? `store ${r.storePerGrant.appends.toFixed(1)} appends, ${r.storePerGrant.transactions.toFixed(1)} commits per grant; ` : '') +
      `driver lag max ${ms(r.maxSendLagMs)}`,
    `counts: ${c.grantsSent} grants sent, ${c.grantsAccepted} accepted; ${c.deliveriesReceived} deliveries received, ` +
      `${c.grantsDeliveredOnce} grants delivered exactly once, ${c.grantsNotDelivered} not delivered, ${c.duplicateDeliveries} duplicates, ` +
      `${c.unexpectedDeliveries} unexpected; attempts recorded ${c.attemptsRecorded} (${c.attemptsRecordedDelivered} delivered); ` +
      `jobs failed ${c.jobsFailed}, unfinished ${c.jobsNotFinished}; baseline ${c.baselineAnswered204}/${c.baselineSent} answered 204, ` +
      `${c.baselineReceived} received; service warnings ${c.serviceWarnings}`,
    `nothing lost: ${r.nothingLost ? 'yes' : 'NO'}`,
    `target: grant-to-delivery p95 < ${TARGET_P95_MS} ms at ${r.grantsPerSecond} grants/s: ${r.targetMet ? 'met' : 'NOT met'} (${ms(r.grantToDeliveryMs.p95)})`,
    '',
  ].join('\n');
}

function projectionRebuildSummary(r: ProjectionRebuildResult): string {
  const g = r.generation;
  const b = r.baseline;
  const s = (seconds: number) => `${seconds.toFixed(1)} s`.padStart(8);
  const rebuildRows = (run: ProjectionRebuildResult['rebuilds'][number]) => [
    `rebuild, ${run.label.padEnd(37)}${s(run.seconds - run.digestSeconds)}  ${format(run.eventsPerSecond)} events/s   ` +
      `(+ digests ${s(run.digestSeconds).trim()}: ${format(run.eventsPerSecondWithDigests).trim()} events/s with them)`,
    `  inside: last batch written at ${s(run.lastBatchSeconds).trim()}, readAll ${s(run.readAllSeconds).trim()}; CPU this process ${s(run.processCpuSeconds).trim()}, Redis ${s(run.redisCpuSeconds).trim()}; ` +
      `${run.redisCommandsPerEvent.toFixed(2)} Redis commands per ledger event`,
  ];
  const documents = Object.entries(r.documents).map(
    ([name, d]) =>
      `${name} ${d.documents.toLocaleString('en-US')}` +
      (d.expected === null ? '' : d.expected === d.documents ? ' (as generated)' : ` (NOT the ${d.expected.toLocaleString('en-US')} generated)`),
  );
  return [
    '',
    `Projection rebuild (issues 6, 18) from ${r.store}: ${r.events.toLocaleString('en-US')} events, ` +
      `${r.projections.length} projections, every one of the service (${r.projections.join(', ')})`,
    r.maxSemiSpaceMb === null
      ? "node: V8's default young generation; the CLI's rebuild runs with --max-semi-space-size=64 (npm run bench sets it too)"
      : `node: --max-semi-space-size=${r.maxSemiSpaceMb}, as npm run ledger runs the CLI`,
    g.reused
      ? 'ledger: reused (BENCH_REBUILD_LEDGER)'
      : `ledger: generated in ${s(g.seconds).trim()} (${format(g.eventsPerSecond).trim()} events/s, not part of any figure): ${g.appends.toLocaleString('en-US')} appends, ` +
        `${g.streams.toLocaleString('en-US')} streams, ${g.tenants} tenants, ${g.customers.toLocaleString('en-US')} customers, ` +
        `${g.consents.toLocaleString('en-US')} consents, ${g.from} to ${g.through}, ${(g.bytes / 1e6).toFixed(0)} MB`,
    ...r.rebuilds.flatMap(rebuildRows),
    `baseline: readAll pages of 1000, one pass         ${s(b.readSeconds)}  ${format(b.readEventsPerSecond)} events/s`,
    `baseline: pipelined SET/ZADD of the final models  ${s(b.writeSeconds)}  ${format(b.writesPerSecond)} writes/s ` +
      `(${b.documents.toLocaleString('en-US')} documents, ${b.indexMembers.toLocaleString('en-US')} index members)`,
    `baseline: read + write                            ${s(b.readSeconds + b.writeSeconds)}  ${format(b.eventsPerSecond)} events/s`,
    `ratio: rebuild / baseline = ${r.ratio.toFixed(2)}   (${format(r.rebuildEventsPerSecond).trim()} / ${format(b.eventsPerSecond).trim()} events/s; medians of ${r.rebuilds.length} rounds, digests excluded)`,
    ...r.partitioned.flatMap((p) => [
      // The partitions read the store on their own connections: the timed store sees only the rebuild's tail after them.
      rebuildRows(p.run)[0],
      `  inside: CPU this process (every thread) ${s(p.run.processCpuSeconds).trim()}, Redis ${s(p.run.redisCpuSeconds).trim()}; ${p.run.redisCommandsPerEvent.toFixed(2)} Redis commands per ledger event`,
      `speed-up in ${p.partitions} partitions: ${p.speedup.toFixed(2)} of the rebuild in one piece (${format(p.run.eventsPerSecond).trim()} / ${format(r.rebuildEventsPerSecond).trim()} events/s, on ${availableParallelism()} cores)`,
    ]),
    `digests: every rebuild's, and the final models' read back, equal the in-memory fold of the same events: ${r.digestsEqual ? 'yes' : 'NO (the run fails)'}; ` +
      `with them ${r.digestRatio.toFixed(2)} of the figure without (within ${DIGEST_ALLOWANCE * 100} %: ${r.digestsWithinAllowance ? 'yes' : 'NO'})`,
    `documents: ${documents.join(', ')}`,
    `Redis memory of the models: ${(r.redis.bytes / 1e6).toFixed(0)} MB in ${r.redis.keys.toLocaleString('en-US')} keys (MEMORY USAGE); ` +
      `used_memory grew ${(r.redis.usedMemoryDeltaBytes / 1e6).toFixed(0)} MB, ${(r.redis.usedMemoryDeltaBytes / r.events).toFixed(0)} bytes per ledger event`,
    ...Object.entries(r.redis.byKind)
      .sort(([, a], [, b]) => b.bytes - a.bytes)
      .map(([kind, { keys, bytes }]) => `  ${kind.padEnd(56)} ${keys.toLocaleString('en-US').padStart(10)} keys  ${(bytes / keys).toFixed(0).padStart(9)} bytes each  ${(bytes / r.events).toFixed(1).padStart(6)} per event`),
    `target: rebuild / baseline >= ${r.target}: ${r.targetMet ? 'met' : 'NOT met'} (${r.ratio.toFixed(2)})`,
    `information: rebuild >= ${format(r.reference).trim()} events/s (issue 6; issue 15 on PostgreSQL), a property of the machine: ` +
      `${r.referenceMet ? 'met' : 'not met'} (${format(r.rebuildEventsPerSecond).trim()}, the median)`,
    '',
  ].join('\n');
}

/** `npm run` starts in the project root, whether this runs compiled or through ts-node. */
function writeResults(name: string, figures: object): void {
  const resultsDir = resolve('bench', 'results');
  mkdirSync(resultsDir, { recursive: true });
  const file = join(resultsDir, name);
  const document = { measuredAt: new Date().toISOString(), node: process.version, ...figures };
  writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
  log(`results written to ${file}`);
}

function format(eventsPerSecond: number): string {
  return Math.round(eventsPerSecond).toLocaleString('en-US').padStart(9);
}

function ms(value: number): string {
  return `${value.toFixed(value < 10 ? 2 : 1)} ms`;
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
