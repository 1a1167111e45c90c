export * from './consent.events';
export * from './consent.state';
export * from './consents.projection';
export * from './grant.decider';
export * from './internal-consent-code';
export * from './regulatory-representation';
export * from './certificate-facts';
export * from './access.decider';
