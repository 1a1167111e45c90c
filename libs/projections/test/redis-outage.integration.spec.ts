import { CuttableRelay } from '../../../test/support/cuttable-relay';
import { StreamCount } from './stream-counts.projection';
import { TestEnvironment } from './environment';

describe('a Redis outage', () => {
  let env: TestEnvironment;
  let relay: CuttableRelay;

  beforeEach(() => {
    env = new TestEnvironment();
    relay = new CuttableRelay();
  });

  afterEach(async () => {
    relay.up();
    await env.dispose();
    await relay.close();
  });

  it('delays projection while Redis is unreachable and loses no event', async () => {
    const runner = env.runner({ redisUrl: await relay.listen() });
    runner.start();
    let position = 0;
    for (let i = 0; i < 10; i++) position = await env.append('s1');
    expect(await runner.waitForPosition(position, 5000)).toBe(true);

    relay.down();
    for (let i = 0; i < 10; i++) position = await env.append('s1');
    expect(await runner.waitForPosition(position, 300)).toBe(false);

    relay.up();
    expect(await runner.waitForPosition(position, 10_000)).toBe(true);
    expect((await env.readModel.getDocument<StreamCount>('stream-counts', 't1:s1'))?.count).toBe(20);
  });
});
