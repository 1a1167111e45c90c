export * from './clock';
export * from './config';
export * from './redis';
export * from './errors';
export * from './identifier-protection';
export * from './request-context';
export * from './scopes';
export * from './retry';
