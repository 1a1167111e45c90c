export { renderConsentPage, renderOutcomePage, itemDecisionField } from './consent-page';
export type { ConsentPageItem, ConsentPageView, OutcomePage } from './consent-page';
export { Markup, PAGE_STYLESHEET, accentStylesheet, html, htmlDocument, list, paragraphs, readable, santiagoInstant, santiagoTime } from './page-html';
export type { PageBank, ReadableCode } from './page-html';
export { consentPageHeaders } from './page-security-headers';
export { CONSENT_PAGE_COOKIE, PRIVACY_CENTER_COOKIE, pageCookieOptions } from './page-cookie';
export { PageReferences, pagePath } from './page-reference';
export type { PageAddress, PageKind } from './page-reference';
