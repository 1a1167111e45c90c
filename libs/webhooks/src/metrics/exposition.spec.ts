import { EXPOSITION_CONTENT_TYPE, escapeLabelValue, formatValue, histogramSamples, renderExposition } from './exposition';

describe('renderExposition', () => {
  it('writes HELP, TYPE and each sample on its own line, every line ending in a line feed', () => {
    const text = renderExposition([
      {
        name: 'jobs',
        help: 'Jobs by state.',
        type: 'gauge',
        samples: [
          { name: 'jobs', labels: { queue: 'a', state: 'waiting' }, value: 3 },
          { name: 'jobs', labels: { queue: 'a', state: 'failed' }, value: 0 },
        ],
      },
      { name: 'attempts_total', help: 'Attempts.', type: 'counter', samples: [{ name: 'attempts_total', value: 12 }] },
    ]);
    expect(text).toBe(
      '# HELP jobs Jobs by state.\n' +
        '# TYPE jobs gauge\n' +
        'jobs{queue="a",state="waiting"} 3\n' +
        'jobs{queue="a",state="failed"} 0\n' +
        '# HELP attempts_total Attempts.\n' +
        '# TYPE attempts_total counter\n' +
        'attempts_total 12\n',
    );
  });

  it('escapes label values and help text as the format says', () => {
    expect(escapeLabelValue('a\\b"c\nd')).toBe('a\\\\b\\"c\\nd');
    const text = renderExposition([{ name: 'm', help: 'line\none \\ two', type: 'gauge', samples: [{ name: 'm', labels: { l: 'say "hi"' }, value: 1 }] }]);
    expect(text).toBe('# HELP m line\\none \\\\ two\n# TYPE m gauge\nm{l="say \\"hi\\""} 1\n');
  });

  it('writes special values as Prometheus spells them', () => {
    expect([0, 7, 0.25, -3, Infinity, -Infinity, NaN].map(formatValue)).toEqual(['0', '7', '0.25', '-3', '+Inf', '-Inf', 'NaN']);
  });

  it('refuses what a scraper would refuse: bad names, a family twice, a sample of another family', () => {
    const gauge = (name: string, sample = name, labels: Record<string, string> = {}) => ({ name, help: 'h', type: 'gauge' as const, samples: [{ name: sample, labels, value: 1 }] });
    expect(() => renderExposition([gauge('1bad')])).toThrow('invalid metric name');
    expect(() => renderExposition([gauge('ok', 'ok', { 'bad-label': 'x' })])).toThrow('invalid label name');
    expect(() => renderExposition([gauge('ok', 'ok', { __reserved: 'x' })])).toThrow('invalid label name');
    expect(() => renderExposition([gauge('ok'), gauge('ok')])).toThrow('rendered twice');
    expect(() => renderExposition([gauge('ok', 'other')])).toThrow('does not belong');
    expect(() => renderExposition([{ name: 'h', help: 'h', type: 'histogram', samples: [{ name: 'h_total', value: 1 }] }])).toThrow('does not belong');
  });

  it('names the 0.0.4 text format', () => {
    expect(EXPOSITION_CONTENT_TYPE).toBe('text/plain; version=0.0.4; charset=utf-8');
  });
});

describe('histogramSamples', () => {
  it('makes per-bucket counts cumulative, with le and sum in the unit shown and +Inf equal to the count', () => {
    const samples = histogramSamples('latency_seconds', [50, 250, 2_500, 60_000], { perBucket: [2, 0, 3, 1, 4], sum: 123_456 }, 1000);
    expect(samples).toEqual([
      { name: 'latency_seconds_bucket', labels: { le: '0.05' }, value: 2 },
      { name: 'latency_seconds_bucket', labels: { le: '0.25' }, value: 2 },
      { name: 'latency_seconds_bucket', labels: { le: '2.5' }, value: 5 },
      { name: 'latency_seconds_bucket', labels: { le: '60' }, value: 6 },
      { name: 'latency_seconds_bucket', labels: { le: '+Inf' }, value: 10 },
      { name: 'latency_seconds_sum', labels: {}, value: 123.456 },
      { name: 'latency_seconds_count', labels: {}, value: 10 },
    ]);
  });

  it('keeps extra labels on every sample, le last', () => {
    const samples = histogramSamples('h', [1], { perBucket: [1, 0], sum: 1 }, 1, { queue: 'q' });
    expect(samples.map((s) => s.labels)).toEqual([{ queue: 'q', le: '1' }, { queue: 'q', le: '+Inf' }, { queue: 'q' }, { queue: 'q' }]);
  });

  it('refuses counts that do not match the bounds', () => {
    expect(() => histogramSamples('h', [1, 2], { perBucket: [1, 2], sum: 0 })).toThrow('needs 3 bucket counts');
  });
});
