import { Cluster, Redis } from 'ioredis';
import { queuePrefix, queuesUnit } from './queue-keys';

// Neither connects: a connection only says which topology the keys are for.
const single = new Redis({ lazyConnect: true });
const cluster = new Cluster([{ host: '127.0.0.1', port: 7000 }], { lazyConnect: true });

describe('where the queues and their dispatchers keep their keys', () => {
  it('on one Redis, as releases before Redis Cluster did, so an upgrade keeps its queued jobs', () => {
    expect(queuePrefix(single, 'bank')).toBe('bank:bull');
    expect(queuesUnit(single, 'bank')).toBe('bank');
  });

  it('on a Redis Cluster, every queue and every dispatcher under one hash tag, so BullMQ\'s scripts and the dispatchers\' stay in one slot', () => {
    expect(queuePrefix(cluster, 'bank')).toBe('bank:{bank:queues}:bull');
    expect(queuesUnit(cluster, 'bank')).toBe('bank:{bank:queues}');
  });
});
