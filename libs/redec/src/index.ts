export * from './calendar';
export * from './configuration';
export * from './profiles';
export * from './consent';
export * from './interaction';
export * from './obligation';
export * from './streams';
export * from './access';
