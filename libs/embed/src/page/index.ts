export { renderConsentPage, renderOutcomePage, itemDecisionField, PAGE_STYLESHEET, accentStylesheet } from './consent-page';
export type { ConsentPageItem, ConsentPageView, OutcomePage, PageBank, ReadableCode } from './consent-page';
export { consentPageHeaders } from './page-security-headers';
export { CONSENT_PAGE_COOKIE, consentPageCookieOptions } from './page-cookie';
export { PageReferences, consentPagePath } from './page-reference';
export type { PageAddress } from './page-reference';
