export * from './queue-declaration';
export { QueueRuntime, queueCounts, type QueuesModuleOptions, type QueueStats } from './queue-runtime';
export { queuePrefix } from './queue-keys';
export * from './queues.module';
export * from './event-dispatcher';
