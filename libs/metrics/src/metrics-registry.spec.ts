import { createMetricsRegistry } from './metrics-registry';

describe('a process metrics registry', () => {
  it('carries the process and runtime families and ledger_build_info with the build', async () => {
    const text = await createMetricsRegistry({ version: '1.2.3', commit: 'abc1234', nodeVersion: 'v20.20.2' }).metrics();
    for (const family of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_seconds']) {
      expect(text).toMatch(new RegExp(`^# TYPE ${family} `, 'm'));
    }
    expect(text).toContain('ledger_build_info{version="1.2.3",commit="abc1234",node_version="v20.20.2"} 1');
  });

  it('can be built twice in one process', () => {
    expect(() => [createMetricsRegistry({ version: '1', commit: 'unknown', nodeVersion: 'v20' }), createMetricsRegistry({ version: '1', commit: 'unknown', nodeVersion: 'v20' })]).not.toThrow();
  });
});
