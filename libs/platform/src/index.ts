export * from './clock';
export * from './config';
export * from './redis';
