export * from './privacy-center-session';
export * from './privacy-center';
export { PRIVACY_CENTER_NOTICES, codesShownBy, REQUEST_DESCRIPTION_MAX, REQUEST_FIELDS, REVOKE_FIELDS, renderPrivacyCenter, renderPrivacyCenterOutcome } from './privacy-center-page';
export type { PrivacyCenterNotice, PrivacyCenterOutcome, PrivacyCenterView } from './privacy-center-page';
