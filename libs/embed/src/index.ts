export * from './page';
export * from './session/embed-session.events';
export * from './session/embed-session.decider';
export * from './session/embed-result';
export * from './session/embed-sessions';
export * from './streams';
export * from './privacy-center';
