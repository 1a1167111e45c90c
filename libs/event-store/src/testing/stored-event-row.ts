/**
 * A row of the `events` table as a test that reads or tampers with the
 * stored ledger sees it: data and metadata as the JSON text the chain hash
 * covers.
 */
export interface StoredEventRow {
  position: number;
  event_id: string;
  stream_id: string;
  revision: number;
  type: string;
  data: string;
  metadata: string;
  hash: string;
  previous_hash: string | null;
}
