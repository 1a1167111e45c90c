export * from './obligation.events';
export * from './obligation-key';
export * from './bind.decider';
export * from './consent-code';
export * from './obligations.projection';
export * from './obligation-lookup';
export * from './reconciliation';
export * from './bind-obligation';
