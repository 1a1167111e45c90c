export * from './access.decider';
export * from './access.events';
export * from './access-record.decider';
export * from './access';
export * from './authorization-spans';
export * from './contradicted-decisions';
