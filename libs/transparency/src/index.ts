export * from './merkle';
export * from './signed-note';
export * from './checkpoint';
export * from './cosignature';
export * from './tiles';
export * from './proof-file';
export * from './witness';
export * from './witness-client';
