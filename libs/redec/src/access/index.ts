export * from './access.decider';
export * from './access.events';
export * from './access-record.decider';
export * from './access';
