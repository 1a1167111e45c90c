import { fieldRefused } from '@ledger/platform';
import { IndexPage, InvalidCursorError, ReadModel } from '@ledger/projections';

/** Epoch ms zero-padded to a fixed width, so that an index's byte order is time order (decision 0021). */
export function instantSortKey(instant: number): string {
  return String(instant).padStart(15, '0');
}

/** One page of a read-model index for a list the API serves: a cursor it never handed out is the caller's error (400 on `cursor`). */
export async function readIndexPage<T>(readModel: ReadModel, name: string, index: string, value: string, page: { after: string | null; limit: number }): Promise<IndexPage<T>> {
  try {
    return await readModel.pageByIndex<T>(name, index, value, page);
  } catch (error) {
    if (error instanceof InvalidCursorError) throw fieldRefused('cursor', 'invalid_cursor', 'cursor is not a nextCursor this list handed out.');
    throw error;
  }
}
