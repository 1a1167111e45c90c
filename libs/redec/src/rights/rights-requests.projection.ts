import type { RecordedEvent } from '@ledger/event-store';
import type { IndexPage, ReadModel } from '@ledger/projections';
import { instantSortKey, readIndexPage } from '../read-index-page';
import { isOverdue } from './rights-request.decider';
import { RightsRequestEvent, RightsRequestKind, RightsRequestState, RightsRequestStatus, evolveRightsRequest } from './rights-request.events';

export const RIGHTS_REQUESTS_PROJECTION = 'rights-requests';
const RIGHTS_REQUEST_EVENT_TYPES = new Set<string>(['RightsRequestReceived', 'RightsRequestAnalysisStarted', 'RightsRequestExtended', 'RightsRequestResolved', 'RightsRequestBlockLifted', 'RightsRequestDeadlineNoticed', 'RightsRequestRectified']);

/** Every request of a tenant, newest receipt last. */
const BY_RECEIPT_INDEX = 'received';
/** The requests still open, by deadline: the list of those due soon or overdue reads it until the first one due later. */
const OPEN_BY_DEADLINE_INDEX = 'open-by-deadline';
/** The same, every tenant's under one value: what the metric of open and overdue requests counts. */
const EVERY_TENANT = '*';
/** A data subject's requests, in the order received: what the subject's report lists. */
const BY_CUSTOMER_INDEX = 'customer';
const customerIndexValue = (tenantId: string, customerId: string) => `${tenantId}:${customerId}`;

/** A request as the list shows it: its state and the bank's references, never the data subject's words. */
export type RightsRequestSummary = RightsRequestState & { channel: string; sourceSystem: string; sourceReference: string };

type RightsRequestDocument = RightsRequestSummary & { tenantId: string };


export const rightsRequestsProjection = {
  name: RIGHTS_REQUESTS_PROJECTION,
  // 2: every tenant's open requests under one value as well, for the metric. 3: the deadline notices given (decision 0069). 4: by customer, for the subject's report (decision 0071).
  // 5: ids and index values stored with their UUIDs compacted (decision 0081).
  version: 5,
  route(event: RecordedEvent): string[] {
    const { tenantId } = event.metadata;
    if (!tenantId || !RIGHTS_REQUEST_EVENT_TYPES.has(event.type)) return [];
    return [`${tenantId}:${(event.data as { rightsRequestId: string }).rightsRequestId}`];
  },
  evolve(state: RightsRequestDocument | null, event: RecordedEvent): RightsRequestDocument | null {
    const fact = event as unknown as RightsRequestEvent;
    if (fact.type !== 'RightsRequestReceived') return state && { ...state, ...evolveRightsRequest(state, fact) };
    const { channel, sourceSystem, sourceReference } = fact.data;
    return { ...evolveRightsRequest(null, fact)!, channel, sourceSystem, sourceReference, tenantId: event.metadata.tenantId! };
  },
  indexes(doc: RightsRequestDocument) {
    const open = doc.status === 'received' || doc.status === 'in_analysis';
    return [
      { index: BY_RECEIPT_INDEX, value: doc.tenantId, sortKey: instantSortKey(doc.receivedAt) },
      { index: BY_CUSTOMER_INDEX, value: customerIndexValue(doc.tenantId, doc.customerId), sortKey: instantSortKey(doc.receivedAt) },
      ...(open
        ? [
            { index: OPEN_BY_DEADLINE_INDEX, value: doc.tenantId, sortKey: instantSortKey(doc.dueAt) },
            { index: OPEN_BY_DEADLINE_INDEX, value: EVERY_TENANT, sortKey: instantSortKey(doc.dueAt) },
          ]
        : []),
    ];
  },
};

export interface RightsRequestListQuery {
  status?: RightsRequestStatus;
  kind?: RightsRequestKind;
  /** Only open requests due by the end of this many days from now, the overdue ones first. */
  dueWithinDays?: number;
  /** Only open requests past their deadline. */
  overdue?: boolean;
  limit: number;
  cursor: string | null;
  now: number;
}

const DAY_MS = 86_400_000;

/**
 * One page of a tenant's requests. Filtered by deadline, the open requests
 * in the order of their deadlines, and the list ends at the first one due
 * later than asked; otherwise every request in the order received. `status`
 * and `kind` filter the page, which may then hold fewer than `limit` items
 * while `nextCursor` goes on.
 */
export async function listRightsRequests(readModel: ReadModel, tenantId: string, query: RightsRequestListQuery): Promise<{ items: Array<RightsRequestSummary & { overdue: boolean }>; nextCursor: string | null }> {
  const dueBy = query.overdue ? query.now : query.dueWithinDays !== undefined ? query.now + query.dueWithinDays * DAY_MS : undefined;
  const index = dueBy === undefined ? BY_RECEIPT_INDEX : OPEN_BY_DEADLINE_INDEX;
  const page = await readIndexPage<RightsRequestDocument>(readModel, RIGHTS_REQUESTS_PROJECTION, index, tenantId, { after: query.cursor, limit: query.limit });
  const items: Array<RightsRequestSummary & { overdue: boolean }> = [];
  for (const { document } of page.entries) {
    // Overdue means past the last millisecond of the deadline; due within N days, by then.
    if (dueBy !== undefined && (query.overdue ? document.dueAt >= dueBy : document.dueAt > dueBy)) return { items, nextCursor: null };
    if ((query.status && document.status !== query.status) || (query.kind && document.kind !== query.kind)) continue;
    const { tenantId: _tenantId, ...summary } = document;
    items.push({ ...summary, overdue: isOverdue(document, query.now) });
  }
  return { items, nextCursor: page.nextCursor };
}

/** The ids of a data subject's requests, in the order received. */
export async function readCustomerRightsRequestIds(readModel: ReadModel, tenantId: string, customerId: string): Promise<string[]> {
  return (await readModel.findByIndex<RightsRequestDocument>(RIGHTS_REQUESTS_PROJECTION, BY_CUSTOMER_INDEX, customerIndexValue(tenantId, customerId))).map((request) => request.rightsRequestId);
}

/** How many pages of open requests one pass reads at most: a scrape or a sweep is bounded even on a ledger far behind on its answers. */
const OPEN_PAGE = 500;
const MAX_OPEN_PAGES = 200;

/**
 * Every tenant's open requests, the nearest deadline first, with their
 * tenant. A pass that would read more than MAX_OPEN_PAGES pages (100,000
 * open requests) throws rather than run unbounded.
 */
export async function* openRightsRequestsByDeadline(readModel: ReadModel): AsyncGenerator<RightsRequestSummary & { tenantId: string }> {
  let cursor: string | null = null;
  for (let pages = 0; pages < MAX_OPEN_PAGES; pages += 1) {
    const page: IndexPage<RightsRequestDocument> = await readModel.pageByIndex<RightsRequestDocument>(RIGHTS_REQUESTS_PROJECTION, OPEN_BY_DEADLINE_INDEX, EVERY_TENANT, { after: cursor, limit: OPEN_PAGE });
    for (const { document } of page.entries) yield document;
    if (page.nextCursor === null) return;
    cursor = page.nextCursor;
  }
  throw new Error(`more than ${MAX_OPEN_PAGES * OPEN_PAGE} open rights requests: not read`);
}

/** The open requests of every tenant, and how many of them are overdue, by kind. */
export async function countOpenRightsRequests(readModel: ReadModel, now: number): Promise<{ open: Map<RightsRequestKind, number>; overdue: Map<RightsRequestKind, number> }> {
  const open = new Map<RightsRequestKind, number>();
  const overdue = new Map<RightsRequestKind, number>();
  for await (const request of openRightsRequestsByDeadline(readModel)) {
    open.set(request.kind, (open.get(request.kind) ?? 0) + 1);
    if (isOverdue(request, now)) overdue.set(request.kind, (overdue.get(request.kind) ?? 0) + 1);
  }
  return { open, overdue };
}
