import type Database from 'better-sqlite3';
import type { FinishedMarks } from '../event-store.port';

/** The dispatchers' finished marks in the embedded store's file (decision 0080). */
export class SqliteFinishedMarks implements FinishedMarks {
  private readonly select: Database.Statement<[string], number | undefined>;
  private readonly upsert: Database.Statement<[string, number]>;

  constructor(db: Database.Database) {
    this.select = db.prepare<[string], number | undefined>('SELECT position FROM finished_marks WHERE follower = ?').pluck();
    this.upsert = db.prepare<[string, number]>(
      'INSERT INTO finished_marks (follower, position) VALUES (?, ?) ON CONFLICT (follower) DO UPDATE SET position = max(position, excluded.position)',
    );
  }

  async of(follower: string): Promise<number> {
    return this.select.get(follower) ?? 0;
  }

  async advance(follower: string, position: number): Promise<void> {
    this.upsert.run(follower, position);
  }
}
