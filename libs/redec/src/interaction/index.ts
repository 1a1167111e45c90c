export * from './create-interaction';
export * from './grant-consent';
export * from './interaction.decider';
export * from './interaction.events';
