export * from './calendar';
export * from './consent';
