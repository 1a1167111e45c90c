import { MasterKeys, openInTransit, sealInTransit } from '@ledger/platform';

/** Whose session a consent page is: what the service needs to find it, and what the person's address bar must not show. */
export interface PageAddress {
  tenantId: string;
  sessionId: string;
}

/** The pages a person opens by a reference; each seals under its own purpose, so one page's reference never opens another. */
export type PageKind = 'consent-page' | 'privacy-center';

const PURPOSES: Record<PageKind, string> = { 'consent-page': 'embed-page-reference', 'privacy-center': 'privacy-center-reference' };
const PATHS: Record<PageKind, string> = { 'consent-page': '/embed/pages', 'privacy-center': '/privacy-center/pages' };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The page's address names neither the tenant nor the session in clear: a
 * reference sealed under the deployment's master key (decision 0075), so the
 * page is found before any tenant is known, without a lookup table, and the
 * person sees no internal id. It is only an address: the session's token
 * (the link's, then the cookie's) still decides who may open the page.
 */
export class PageReferences {
  constructor(private readonly keys: MasterKeys) {}

  referenceOf(kind: PageKind, { tenantId, sessionId }: PageAddress): string {
    if (!UUID.test(tenantId) || !UUID.test(sessionId)) throw new Error('a page reference is made of two lower-case UUIDs');
    return sealInTransit(this.keys, PURPOSES[kind], Buffer.concat([uuidBytes(tenantId), uuidBytes(sessionId)]));
  }

  /** The page a reference names; null for one this deployment did not make, altered, or sealed under a master key it no longer holds. */
  open(kind: PageKind, reference: string): PageAddress | null {
    const bytes = openInTransit(this.keys, PURPOSES[kind], reference);
    if (bytes === null || bytes.length !== 32) return null;
    return { tenantId: uuidText(bytes.subarray(0, 16)), sessionId: uuidText(bytes.subarray(16)) };
  }
}

/** The page's path under the service's public URL. */
export function pagePath(kind: PageKind, reference: string): string {
  return `${PATHS[kind]}/${reference}`;
}

function uuidBytes(uuid: string): Buffer {
  return Buffer.from(uuid.replace(/-/g, ''), 'hex');
}

function uuidText(bytes: Buffer): string {
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
