export * from './retention';
export * from './erase-customers';
