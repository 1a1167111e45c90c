import { generalConsentsProjection } from '@ledger/consents';
import { customersProjection } from '@ledger/ledger';
import type { AnyDocumentProjection } from '@ledger/projections';
import { configurationsProjection, consentReferencesProjection, consentsProjection, obligationsProjection, rightsRequestsProjection } from '@ledger/redec';

/**
 * Every read-model projection, in the one list the API runs and the CLI
 * reports on and rebuilds. It lives above the libraries because it names
 * their projections.
 */
export const PROJECTIONS: readonly AnyDocumentProjection[] = [
  customersProjection,
  configurationsProjection,
  consentsProjection,
  obligationsProjection,
  consentReferencesProjection,
  generalConsentsProjection,
  rightsRequestsProjection,
];
