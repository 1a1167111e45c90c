export { renderConsentPage, renderOutcomePage, itemDecisionField, PAGE_STYLESHEET } from './consent-page';
export type { ConsentPageItem, ConsentPageView, OutcomePage } from './consent-page';
export { consentPageHeaders } from './page-security-headers';
export { CONSENT_PAGE_COOKIE, consentPageCookieOptions } from './page-cookie';
