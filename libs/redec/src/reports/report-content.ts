import { sha256HexInSlices, TenantDataKey } from '@ledger/platform';
import { ReportRendered } from './report.events';

/**
 * What is stored of a rendered file (decision 0045): its bytes sealed under
 * the report's own key, and the SHA-256 of the plain bytes sealed under the
 * same key. Neither is the plain hash, nor stable across renderings (a fresh
 * nonce each), so nothing kept can be compared with the hash of a file
 * re-rendered with a guessed RUT; once the key is destroyed neither opens.
 */
export interface ProtectedReportContent {
  /** What the blob store keeps; it names the blob by the SHA-256 of these bytes, not of the file. */
  sealed: Buffer;
  /** `v2.<rk_ key id>.…`: the file's SHA-256 (hex), for ReportRendered. */
  protectedContentSha256: string;
}

export async function protectReportContent(key: TenantDataKey, reportId: string, content: Buffer): Promise<ProtectedReportContent> {
  // Bound to the report: a sealed file copied under another report does not open.
  return { sealed: await key.sealBlob(reportId, content), protectedContentSha256: key.encrypt(await sha256HexInSlices(content)) };
}

/**
 * The file's SHA-256 while it can be told: from the fact itself for a file
 * rendered before decision 0045 (its plain hash is in the log), else opened
 * with the report's key; null once the key is destroyed (`key` null).
 */
export function contentSha256Of(rendered: ReportRendered['data'], key: TenantDataKey | null): string | null {
  if (rendered.contentSha256 !== undefined) return rendered.contentSha256;
  return key && rendered.protectedContentSha256 !== undefined ? key.decrypt(rendered.protectedContentSha256) : null;
}

/** The name of the blob that holds the file: before decision 0045 the plain hash, since then the hash of the sealed bytes. */
export function contentBlobOf(rendered: ReportRendered['data']): string {
  return rendered.contentBlob ?? rendered.contentSha256!;
}

/**
 * The file from what the blob store gave back: as it is for a file stored
 * before decision 0045, else opened with the report's key; either way it
 * must hash to `contentSha256`, or this throws rather than serve other bytes.
 */
export async function openReportContent(rendered: ReportRendered['data'], key: TenantDataKey | null, stored: Buffer): Promise<{ content: Buffer; contentSha256: string }> {
  const contentSha256 = contentSha256Of(rendered, key);
  if (contentSha256 === null) throw new Error(`report ${rendered.reportId}: its key is destroyed`);
  const content = rendered.contentSha256 !== undefined ? stored : await key!.openBlob(rendered.reportId, stored);
  if ((await sha256HexInSlices(content)) !== contentSha256) throw new Error(`report ${rendered.reportId}: the stored file does not hash to its contentSha256`);
  return { content, contentSha256 };
}
