import type { LedgerLocations } from '@ledger/platform';
import type { ProgressReport, ProjectionLog } from '@ledger/projections';

/** What the API hands its projection thread: where the store and the read model are. */
export type ProjectionThreadData = LedgerLocations;

export type FromProjectionThread = { kind: 'progress'; report: ProgressReport } | { kind: 'log'; level: Parameters<ProjectionLog>[0]; message: string };

export type ToProjectionThread = { kind: 'stop' };
