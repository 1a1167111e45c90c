export * from './general-consent.events';
export * from './general-consent.decider';
export * from './general-consent.commands';
export * from './general-consents.projection';
export * from './streams';
export * from './compliance/consent-compliance';
