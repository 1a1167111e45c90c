export { describeEventStoreContract, newEvent } from './event-store.contract';
export type { ContractOptions, OpenedStore } from './event-store.contract';
