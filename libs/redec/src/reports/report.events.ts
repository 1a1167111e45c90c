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
 * The file was rendered and its bytes stored, sealed under the report's own
 * key (decision 0045). It repeats what the file is, so the `report.created`
 * webhook is built from this fact alone. The file's SHA-256 is recorded only
 * under the report's key: in clear, in a fact that outlives the file, it
 * would let a holder of the master key test RUT guesses for a data subject
 * erased later (re-render, hash, compare).
 */
export interface ReportRendered {
  type: 'ReportRendered';
  data: Pick<ReportRequested['data'], 'reportId' | 'kind' | 'periodStart' | 'periodEnd' | 'layoutVersion'> & {
    /** `v2.<rk_ key id>.…`: the file's SHA-256 (hex) sealed under the report's key (report-content.ts). */
    protectedContentSha256?: string;
    /** The blob holding the sealed file: the SHA-256 of the sealed bytes, which says nothing of the file's. */
    contentBlob?: string;
    /** The file's SHA-256 in clear: only on a fact recorded before decision 0045, whose blob it also names. */
    contentSha256?: string;
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
 * floor (decision 0040): its bytes are deleted and the report's key, which
 * sealed them and their hash, destroyed (decision 0045). What the file was
 * (period, counts, layout) stays; its hash does not, for the reason
 * ReportRendered gives.
 */
export interface ReportContentErased {
  type: 'ReportContentErased';
  /**
   * `customerIds`: the erased customers the file named (empty when a fact
   * from before decision 0040 did not say). `contentSha256` is only on a
   * fact recorded before decision 0045.
   */
  data: { reportId: string; contentSha256?: string; customerIds: string[]; erasedAt: number };
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
