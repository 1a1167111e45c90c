export * from './consent.events';
export * from './grant.decider';
export * from './internal-consent-code';
