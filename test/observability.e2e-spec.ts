import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parser } from '@prometheus-io/lezer-promql';
import { parse as parseYaml } from 'yaml';
import { TestEnvironment, testEnvironment } from './support/environment';
import { ApiProcess, WorkerProcess, ensureBuilt, freePort, spawnApi, spawnWorker, stopProcesses } from './support/processes';

// Issue 17: the Grafana dashboard and the Prometheus alert rules of
// docker/observability/ are read by a real PromQL parser (Prometheus's own
// grammar), and every metric they name must be one the built API or worker
// exports, scraped from the processes as Prometheus scrapes them.

const ROOT = join(__dirname, '..');
const OBSERVABILITY = join(ROOT, 'docker/observability');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

interface AlertRule {
  alert: string;
  expr: string;
  for: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}
interface Panel {
  title: string;
  type: string;
  datasource?: { type: string; uid: string };
  targets?: Array<{ expr: string; datasource?: { type: string; uid: string } }>;
}

const alertRules = (): AlertRule[] =>
  (parseYaml(read('docker/observability/prometheus/alerts.yml')) as { groups: Array<{ rules: AlertRule[] }> }).groups.flatMap((group) => group.rules);
const dashboard = () => JSON.parse(read('docker/observability/grafana/dashboards/consent-ledger.json')) as { panels: Panel[]; templating: { list: Array<{ name: string; type: string; query: string }> } };

/**
 * A panel's query as Grafana sends it: its one variable, the rate window
 * Grafana derives from the scrape interval, replaced. Any other variable
 * fails, so a new one is added here (and checked) on purpose.
 */
function asSent(expr: string): string {
  const sent = expr.replaceAll('$__rate_interval', '1m');
  if (sent.includes('$')) throw new Error(`a Grafana variable this test does not know: ${expr}`);
  return sent;
}

/** Prometheus's grammar recovers from errors by inserting error nodes: each one is a syntax error (its position in the text). */
function syntaxErrors(expr: string): number[] {
  const errors: number[] = [];
  parser.parse(expr).iterate({
    enter: (node) => {
      if (node.type.isError) errors.push(node.from);
    },
  });
  return errors;
}

/** The metric names an expression selects (a vector selector's identifier, inside a range selector too). */
function metricNames(expr: string): string[] {
  const names: string[] = [];
  parser.parse(expr).iterate({
    enter: (node) => {
      if (node.name === 'Identifier' && node.node.parent?.name === 'VectorSelector') names.push(expr.slice(node.from, node.to));
    },
  });
  return names;
}

/** Every series name a text exposition can hold: each family's, with a histogram's `_bucket`, `_sum`, `_count` and a summary's `_sum`, `_count`. */
function exportedNames(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const [, name, type] of exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name);
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(`${name}${suffix}`);
    if (type === 'summary') for (const suffix of ['_sum', '_count']) names.add(`${name}${suffix}`);
  }
  return names;
}

describe('docker/observability', () => {
  const expressions = () => [
    ...alertRules().map((rule) => ({ source: `alert ${rule.alert}`, expr: rule.expr })),
    ...dashboard().panels.flatMap((panel) => (panel.targets ?? []).map((target) => ({ source: `panel "${panel.title}"`, expr: asSent(target.expr) }))),
  ];

  it('has alert and panel expressions that Prometheus parses, for every alert the issue names', () => {
    // The parser does report errors: an unclosed call and an unknown function.
    expect(syntaxErrors('sum(rate(http_request_duration_seconds_count[5m])')).not.toEqual([]);
    expect(syntaxErrors('rated(ledger_projection_lag[5m])')).not.toEqual([]);

    const all = expressions();
    expect(all.length).toBeGreaterThan(20);
    for (const { source, expr } of all) expect({ source, expr, errors: syntaxErrors(expr) }).toEqual({ source, expr, errors: [] });
    // Projection lag, failed jobs, webhook failures, 5xx rate and p99 latency (issue 17, item 5).
    const selected = (name: string) => alertRules().filter((rule) => metricNames(rule.expr).includes(name));
    expect(selected('ledger_projection_lag')).not.toEqual([]);
    expect(selected('ledger_queue_jobs').some((rule) => rule.expr.includes('state="failed"'))).toBe(true);
    expect(selected('ledger_webhook_deliveries_total').some((rule) => rule.expr.includes('outcome="failed"'))).toBe(true);
    expect(selected('http_request_duration_seconds_count').some((rule) => rule.expr.includes('status_class="5xx"'))).toBe(true);
    expect(selected('http_request_duration_seconds_bucket').some((rule) => rule.expr.startsWith('histogram_quantile(0.99,'))).toBe(true);
  });

  it('has alerts that wait before firing, carry a severity, say what happened, and each have a runbook entry in docs/operations.md', () => {
    const operations = read('docs/operations.md');
    const names = alertRules().map((rule) => rule.alert);
    expect(new Set(names).size).toBe(names.length);
    for (const rule of alertRules()) {
      expect({ alert: rule.alert, for: rule.for }).toEqual({ alert: rule.alert, for: expect.stringMatching(/^\d+[smh]$/) });
      expect({ alert: rule.alert, severity: rule.labels?.severity }).toEqual({ alert: rule.alert, severity: expect.stringMatching(/^(warning|critical)$/) });
      expect({ alert: rule.alert, summary: rule.annotations?.summary, description: rule.annotations?.description }).toEqual({
        alert: rule.alert,
        summary: expect.stringMatching(/\S/),
        description: expect.stringMatching(/\S/),
      });
      expect({ alert: rule.alert, documented: operations.includes(`**${rule.alert}**`) }).toEqual({ alert: rule.alert, documented: true });
    }
  });

  it('has a dashboard Grafana provisions against any Prometheus (the DS_PROMETHEUS variable), and compose mounts it all read-only in the observability profile', () => {
    const { panels, templating } = dashboard();
    expect(templating.list).toContainEqual(expect.objectContaining({ name: 'DS_PROMETHEUS', type: 'datasource', query: 'prometheus' }));
    const datasources = panels.filter((panel) => panel.type !== 'row').flatMap((panel) => [panel.datasource, ...(panel.targets ?? []).map((target) => target.datasource)]);
    expect(new Set(datasources.map((datasource) => JSON.stringify(datasource)))).toEqual(new Set([JSON.stringify({ type: 'prometheus', uid: '${DS_PROMETHEUS}' })]));

    const compose = parseYaml(read('docker/compose.yml')) as { services: Record<string, { profiles?: string[]; volumes?: string[]; environment?: Record<string, string> }> };
    for (const service of ['prometheus', 'grafana']) {
      expect(compose.services[service].profiles).toEqual(['observability']);
      const mounts = compose.services[service].volumes!.filter((volume) => volume.startsWith('./observability/'));
      expect(mounts).not.toEqual([]);
      for (const mount of mounts) {
        const [source, , mode] = mount.split(':');
        expect({ mount, exists: existsSync(join(ROOT, 'docker', source)), mode }).toEqual({ mount, exists: true, mode: 'ro' });
      }
    }
    // Prometheus scrapes both APIs and the worker on the metrics port compose gives it, and loads the mounted rules.
    const prometheus = parseYaml(readFileSync(join(OBSERVABILITY, 'prometheus/prometheus.yml'), 'utf8')) as {
      rule_files: string[];
      scrape_configs: Array<{ job_name: string; static_configs: Array<{ targets: string[] }> }>;
    };
    expect(prometheus.rule_files).toEqual(['/etc/prometheus/alerts.yml']);
    expect(compose.services.prometheus.volumes).toContain('./observability/prometheus/alerts.yml:/etc/prometheus/alerts.yml:ro');
    const targets = prometheus.scrape_configs.flatMap((job) => job.static_configs.flatMap((config) => config.targets));
    expect(targets.sort()).toEqual(['api-1:3000', 'api-2:3000', `worker:${compose.services.worker.environment!.LEDGER_WORKER_METRICS_PORT}`]);
  });

  describe('against the built API and worker', () => {
    let environment: TestEnvironment;
    let api: ApiProcess | undefined;
    let worker: WorkerProcess | undefined;
    let workerMetricsPort: number;

    beforeAll(async () => {
      ensureBuilt();
      environment = testEnvironment({ LEDGER_WORKERS: 'external' });
      workerMetricsPort = await freePort();
      [api, worker] = await Promise.all([
        spawnApi(environment.env, 90_000, { built: true }),
        spawnWorker({ ...environment.env, LEDGER_WORKER_METRICS_PORT: String(workerMetricsPort) }, 90_000, { built: true }),
      ]);
    }, 180_000);
    afterAll(async () => {
      await stopProcesses([api, worker]);
      await environment?.dispose();
    });

    it('exports every metric an alert or a panel names, after a request', async () => {
      expect((await fetch(`${api!.baseUrl}/health/live`)).status).toBe(200);
      const scrape = async (url: string) => {
        const response = await fetch(url);
        expect(response.status).toBe(200);
        return exportedNames(await response.text());
      };
      const apiNames = await scrape(`${api!.baseUrl}/metrics`);
      const workerNames = await scrape(`http://127.0.0.1:${workerMetricsPort}/metrics`);
      expect(apiNames).toContain('http_request_duration_seconds_bucket');
      expect(workerNames).toContain('process_cpu_seconds_total');

      const exported = new Set([...apiNames, ...workerNames]);
      for (const { source, expr } of expressions()) {
        const names = metricNames(expr);
        expect({ source, selects: names.length > 0 }).toEqual({ source, selects: true });
        expect({ source, unknown: names.filter((name) => !exported.has(name)) }).toEqual({ source, unknown: [] });
      }
      // The panels about processes read the worker too: what they name, it exports.
      const processPanels = dashboard().panels.filter((panel) => ['CPU', 'Resident memory', 'Event loop lag p99', 'Heap used', 'Builds running'].includes(panel.title));
      expect(processPanels).toHaveLength(5);
      for (const panel of processPanels) for (const name of panel.targets!.flatMap((target) => metricNames(asSent(target.expr)))) expect({ panel: panel.title, name, worker: workerNames.has(name) }).toEqual({ panel: panel.title, name, worker: true });
    }, 60_000);
  });
});
