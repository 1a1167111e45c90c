export type { AnyDocumentProjection, DocumentProjection, IndexEntry } from './projection';
export { ProjectionRunner } from './projection-runner';
export type { ProjectionLog, ProjectionRunnerOptions, ProjectionStatus, RebuildResult } from './projection-runner';
export type { RebuildProgress } from './rebuild';
export { InvalidCursorError, cursorBeforeSortKey } from './index-member';
export { ReadModel } from './read-model';
export type { IndexPage } from './read-model';
export { PROJECTIONS_REDIS, ProjectionsModule } from './projections.module';
export type { ProjectionsModuleOptions } from './projections.module';
