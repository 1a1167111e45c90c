import { Provider } from '@nestjs/common';
import { LedgerConfig } from '@ledger/platform';
import { loadReportLayouts } from '@ledger/redec';

export const REPORT_LAYOUTS = Symbol('REPORT_LAYOUTS');

/** The shipped RDC30/RDC31 layouts, or their corrections from LEDGER_REPORT_LAYOUTS_FILE; read before Nest starts, so a bad file fails start-up naming its problems. */
export function reportLayoutsProvider(config: LedgerConfig): Provider {
  return { provide: REPORT_LAYOUTS, useValue: loadReportLayouts(config.reportLayoutsFile) };
}
