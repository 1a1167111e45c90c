export * from './configuration.events';
export * from './configuration.decider';
export * from './publish-configuration';
export * from './configurations.projection';
export * from './ledger-configurations';
