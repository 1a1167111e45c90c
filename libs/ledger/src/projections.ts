import { customersProjection } from './customers/customers.projection';

/** Every read-model projection, in one list that the API runs and the CLI reports on and rebuilds. */
export const PROJECTIONS = [customersProjection];
