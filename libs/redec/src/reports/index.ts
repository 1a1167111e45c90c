export * from './report-layout';
export { type FieldValue, type RecordValues, ReportFieldError, renderFile, renderRecord } from './fixed-width';
export * from './report-records';
export * from './load-report-layouts';
export * from './report.events';
export * from './report.decider';
export * from './report-content';
export * from './reports';
export * from './report-schedules';
