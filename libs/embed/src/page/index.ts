export { renderConsentPage, renderOutcomePage, PAGE_STYLESHEET } from './consent-page';
export type { ConsentPageView, OutcomePage } from './consent-page';
export { consentPageHeaders } from './page-security-headers';
