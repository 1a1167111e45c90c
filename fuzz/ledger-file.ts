import Database from 'better-sqlite3';

/** A fact as the harness sees it in the event store. */
export interface StoredFact {
  position: number;
  streamId: string;
  type: string;
}

/**
 * The service's embedded event store (`ledger.sqlite` in its data
 * directory), opened read-only beside the running service: its head
 * position, and what was appended after a position.
 */
export class LedgerFile {
  private readonly db: Database.Database;
  private readonly headQuery: Database.Statement<[], { head: number | null }>;
  private readonly afterQuery: Database.Statement<[number], { position: number; stream_id: string; type: string }>;

  constructor(file: string) {
    this.db = new Database(file, { readonly: true, fileMustExist: true });
    this.headQuery = this.db.prepare('SELECT MAX(position) AS head FROM events');
    this.afterQuery = this.db.prepare('SELECT position, stream_id, type FROM events WHERE position > ? ORDER BY position');
  }

  head(): number {
    return this.headQuery.get()?.head ?? 0;
  }

  factsAfter(position: number): StoredFact[] {
    return this.afterQuery.all(position).map((row) => ({ position: row.position, streamId: row.stream_id, type: row.type }));
  }

  /** Every fact's data, parsed (bookkeeping left out): where the harness finds the identifier hashes and ciphertexts the service stored. */
  allFactData(): unknown[] {
    return (this.db.prepare('SELECT stream_id, data FROM events').all() as Array<{ stream_id: string; data: string }>)
      .filter((row) => !isBookkeeping({ position: 0, streamId: row.stream_id, type: '' }))
      .map((row) => JSON.parse(row.data) as unknown);
  }

  close(): void {
    this.db.close();
  }
}

/**
 * Facts a refused request may leave: the Idempotency-Key's own bookkeeping
 * (its claim, then the stored answer or the release), as
 * test/support/expectations.ts recordsNoFact allows.
 */
export const isBookkeeping = (fact: StoredFact): boolean => fact.streamId.startsWith('idempotency-');
