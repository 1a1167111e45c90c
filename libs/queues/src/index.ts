export * from './queue-declaration';
export { QueueRuntime, queueCounts, queuePrefix, type QueuesModuleOptions, type QueueStats } from './queue-runtime';
export * from './queues.module';
export * from './event-dispatcher';
