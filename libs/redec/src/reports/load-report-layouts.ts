import { readFileSync } from 'node:fs';
import { ConfigError } from '@ledger/platform';
import { ReportKind, ReportLayouts, SHIPPED_REPORT_LAYOUTS, parseReportLayout } from './report-layout';

export const REPORT_LAYOUTS_FILE_ENV = 'LEDGER_REPORT_LAYOUTS_FILE';

/**
 * The layouts the service renders with: the shipped ones, each replaced by
 * the layout of the same kind in LEDGER_REPORT_LAYOUTS_FILE
 * (`{ "layouts": [...] }`), so that a correction of the official layout needs
 * no release. Read at start-up: a missing or invalid file stops the service
 * naming every problem, instead of a wrong file reaching the regulator.
 */
export function loadReportLayouts(file: string | undefined): ReportLayouts {
  if (file === undefined) return SHIPPED_REPORT_LAYOUTS;
  const source = `${REPORT_LAYOUTS_FILE_ENV} ${file}`;
  let document: { layouts?: unknown };
  try {
    document = JSON.parse(readFileSync(file, 'utf8')) as { layouts?: unknown };
  } catch (error) {
    throw new ConfigError(`${source} cannot be read as JSON: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  if (!Array.isArray(document?.layouts) || document.layouts.length === 0) throw new ConfigError(`${source}: expected { "layouts": [ ... ] } with at least one layout.`);
  const layouts: Record<ReportKind, ReportLayouts[ReportKind]> = { ...SHIPPED_REPORT_LAYOUTS };
  const seen = new Set<ReportKind>();
  document.layouts.forEach((entry, index) => {
    const layout = parseReportLayout(entry, `${source}, layouts[${index}]`);
    if (seen.has(layout.kind)) throw new ConfigError(`${source}: two layouts of kind ${layout.kind}.`);
    if (layout.version === SHIPPED_REPORT_LAYOUTS[layout.kind].version) {
      // The version is recorded with each report: an auditor must be able to tell which layout a file was written under.
      throw new ConfigError(`${source}: layout ${layout.kind} keeps the shipped version ${layout.version}; give the corrected layout a version of its own.`);
    }
    seen.add(layout.kind);
    layouts[layout.kind] = layout;
  });
  return layouts;
}
