/** Stops the Redis Cluster the run's setup started. */
export default async function redisClusterTeardown(): Promise<void> {
  await globalThis.redisClusterUnderTest?.stop();
}
