export * from './exposition';
export * from './delivery-metrics';
