import { ReportKind } from './report-layout';

/**
 * A report was asked for: who (the fact's actor), which file, which period,
 * under which layout version, and the store position its facts are read up
 * to, so that rendering it again, by a retried job or an auditor, reads
 * exactly the same facts.
 */
export interface ReportRequested {
  type: 'ReportRequested';
  data: {
    reportId: string;
    kind: ReportKind;
    periodStart: number;
    periodEnd: number;
    layoutVersion: string;
    /** The tenant's CMF institution code when asked: the file's header. */
    institutionCode: string;
    asOfPosition: number;
    requestedAt: number;
  };
}

/**
 * The file was rendered and its bytes stored (encrypted, content-addressed):
 * `contentSha256` names exactly those bytes. It repeats what the file is, so
 * the `report.created` webhook is built from this fact alone.
 */
export interface ReportRendered {
  type: 'ReportRendered';
  data: Pick<ReportRequested['data'], 'reportId' | 'kind' | 'periodStart' | 'periodEnd' | 'layoutVersion'> & {
    contentSha256: string;
    size: number;
    records: number;
    metadata: Record<string, number>;
    /**
     * The customers whose RUT the file names (RDC30's data subjects; RDC31
     * names none), so that an erasure finds the contents it must erase
     * (decision 0040). Absent on a fact recorded before that decision.
     */
    customerIds?: string[];
    renderedAt: number;
  };
}

/** The file cannot be rendered from these facts under this layout (a value that does not fit its field, a date outside the banking calendar). */
export interface ReportFailed {
  type: 'ReportFailed';
  /** `reason` names the problem and the field, never a value. */
  data: { reportId: string; reason: string; failedAt: number };
}

/**
 * The stored file named a customer whose data was erased after the retention
 * floor (decision 0040): its bytes are deleted. What the file was (period,
 * counts, `contentSha256`) stays, so a copy kept elsewhere can still be
 * checked against it.
 */
export interface ReportContentErased {
  type: 'ReportContentErased';
  /** `customerIds`: the erased customers the file named (empty when a fact from before decision 0040 did not say). */
  data: { reportId: string; contentSha256: string; customerIds: string[]; erasedAt: number };
}

export type ReportEvent = ReportRequested | ReportRendered | ReportFailed | ReportContentErased;

export type ReportStatus = 'pending' | 'ready' | 'failed';

export interface Report {
  request: ReportRequested['data'];
  status: ReportStatus;
  rendered: ReportRendered['data'] | null;
  failure: ReportFailed['data'] | null;
  contentErased: ReportContentErased['data'] | null;
}

export function evolveReport(state: Report | null, event: ReportEvent): Report | null {
  switch (event.type) {
    case 'ReportRequested':
      return { request: event.data, status: 'pending', rendered: null, failure: null, contentErased: null };
    case 'ReportRendered':
      return state && { ...state, status: 'ready', rendered: event.data };
    case 'ReportFailed':
      return state && { ...state, status: 'failed', failure: event.data };
    case 'ReportContentErased':
      return state && { ...state, contentErased: event.data };
    default: {
      const unknown: never = event;
      return unknown;
    }
  }
}
