import type { Pool } from 'pg';
import type { FinishedMarks } from '../event-store.port';

/** The dispatchers' finished marks in the store's database (decision 0080). */
export class PostgresFinishedMarks implements FinishedMarks {
  constructor(
    private readonly pool: Pool,
    private readonly ready: Promise<void>,
  ) {}

  async of(follower: string): Promise<number> {
    await this.ready;
    const { rows } = await this.pool.query<{ position: string }>('SELECT position FROM finished_marks WHERE follower = $1', [follower]);
    return rows.length === 0 ? 0 : Number(rows[0].position);
  }

  async advance(follower: string, position: number): Promise<void> {
    await this.ready;
    await this.pool.query(
      `INSERT INTO finished_marks (follower, position) VALUES ($1, $2)
       ON CONFLICT (follower) DO UPDATE SET position = GREATEST(finished_marks.position, EXCLUDED.position)`,
      [follower, position],
    );
  }
}
