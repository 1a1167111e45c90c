import { grantedAt } from '../../consent/testing/consent-fixtures';
import { AccessRequest } from '../access.decider';

/** An initial_window request for what the fixture consent grants, for specs of the access rules. */
export const accessRequest = (overrides: Partial<AccessRequest> = {}): AccessRequest => ({
  authorizationBasis: 'consent',
  consentAuthorizationMode: 'initial_window',
  redecConsentId: 'con-1',
  dataCategoryCode: 'redec.consolidated_debt_record',
  scopeId: 'redec-debt',
  objectiveCode: '02',
  reportingObligation: { status: 'none', sourceSystem: 'core-loans', sourceReference: 'op-1', assertedAt: grantedAt },
  sourceSystem: 'origination',
  sourceReference: 'acc-1',
  ...overrides,
});
