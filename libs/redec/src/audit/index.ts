export * from './consent-references.projection';
export * from './consent-history';
export * from './history-timeline';
