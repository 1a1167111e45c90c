/**
 * The Prometheus text exposition format, version 0.0.4: what `GET /metrics`
 * serves. Only what the service needs: counters, gauges and histograms whose
 * samples are already computed (no client-side registry).
 *
 * https://prometheus.io/docs/instrumenting/exposition_formats/#text-based-format
 */

export const EXPOSITION_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export type MetricType = 'counter' | 'gauge' | 'histogram';

export interface MetricSample {
  /** The family's name, or for a histogram the family's name plus `_bucket`, `_sum` or `_count`. */
  name: string;
  labels?: Readonly<Record<string, string>>;
  value: number;
}

/** One `# HELP` / `# TYPE` block and its samples. */
export interface MetricFamily {
  name: string;
  help: string;
  type: MetricType;
  samples: readonly MetricSample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** The whole exposition: families in the order given, every line ending in `\n`. */
export function renderExposition(families: readonly MetricFamily[]): string {
  const names = new Set<string>();
  let text = '';
  for (const family of families) {
    if (!METRIC_NAME.test(family.name)) throw new Error(`invalid metric name "${family.name}"`);
    if (names.has(family.name)) throw new Error(`metric "${family.name}" rendered twice`);
    names.add(family.name);
    text += `# HELP ${family.name} ${escapeHelp(family.help)}\n# TYPE ${family.name} ${family.type}\n`;
    for (const sample of family.samples) {
      if (!belongsTo(sample.name, family)) throw new Error(`sample "${sample.name}" does not belong to metric "${family.name}"`);
      text += `${sample.name}${renderLabels(sample.labels)} ${formatValue(sample.value)}\n`;
    }
  }
  return text;
}

/**
 * A value as the format writes it: Go's ParseFloat syntax, with `+Inf`,
 * `-Inf` and `NaN` spelled as Prometheus spells them.
 */
export function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

/** Backslash, double quote and line feed are escaped in label values. */
export function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/** Backslash and line feed are escaped in HELP text. */
function escapeHelp(help: string): string {
  return help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

function renderLabels(labels: Readonly<Record<string, string>> | undefined): string {
  const entries = Object.entries(labels ?? {});
  if (entries.length === 0) return '';
  for (const [name] of entries) if (!LABEL_NAME.test(name) || name.startsWith('__')) throw new Error(`invalid label name "${name}"`);
  return `{${entries.map(([name, value]) => `${name}="${escapeLabelValue(value)}"`).join(',')}}`;
}

function belongsTo(sampleName: string, family: MetricFamily): boolean {
  if (family.type !== 'histogram') return sampleName === family.name;
  return ['_bucket', '_sum', '_count'].some((suffix) => sampleName === `${family.name}${suffix}`);
}

/**
 * The samples of one histogram from per-bucket counts that are NOT
 * cumulative (observations in (previous bound, bound], the last one above
 * every bound): `_bucket` lines are cumulative, `le` and `_sum` in the unit
 * of the histogram (the stored unit divided by `divisor`: 1000 from ms to
 * seconds; a division, so 250 ms is exactly `0.25`), the `+Inf` bucket
 * equals `_count`.
 */
export function histogramSamples(
  name: string,
  bounds: readonly number[],
  counts: { perBucket: readonly number[]; sum: number },
  divisor = 1,
  labels: Readonly<Record<string, string>> = {},
): MetricSample[] {
  if (counts.perBucket.length !== bounds.length + 1) throw new Error(`histogram "${name}" needs ${bounds.length + 1} bucket counts`);
  const samples: MetricSample[] = [];
  let cumulative = 0;
  counts.perBucket.forEach((count, index) => {
    cumulative += count;
    const le = index < bounds.length ? formatValue(bounds[index] / divisor) : '+Inf';
    samples.push({ name: `${name}_bucket`, labels: { ...labels, le }, value: cumulative });
  });
  samples.push({ name: `${name}_sum`, labels, value: counts.sum / divisor });
  samples.push({ name: `${name}_count`, labels, value: cumulative });
  return samples;
}
