import { ReplyError } from 'ioredis';
import { DomainError, isRedisCluster, type LuaScript, runScript, unavailable, type RedisClient } from '@ledger/platform';
import { DocumentCodec, documentCodec } from './document-compression';
import { cursorOf, memberOfCursor, parseIndexMember } from './index-member';
import { READ_DOCUMENT, READ_GROUP, READ_INDEX, READ_INDEX_PAGE, READ_MODEL_REBUILDING_REPLY } from './lua-scripts';
import type { AnyDocumentProjection } from './projection';
import { ProjectionProgress } from './projection-progress';
import { docSuffix, groupSuffix, indexSuffix, RedisLayout } from './redis-layout';
import { fromRedisText } from './redis-text';

/** The stored form of a projection that does not compress. */
const PLAIN = new DocumentCodec(undefined);

/** How long a client is told to wait (Retry-After) when the read model cannot answer: a million events rebuild well within a minute, and Redis restarts in seconds. */
const READ_MODEL_RETRY_AFTER_SECONDS = 5;

/** 503 read_model_rebuilding: the read model lost its data and is being rebuilt from the ledger (decision 0078). */
export function readModelRebuilding(): DomainError {
  return unavailable('read_model_rebuilding', 'The read model is being rebuilt from the ledger; retry after the number of seconds in Retry-After.', {
    retryAfterSeconds: READ_MODEL_RETRY_AFTER_SECONDS,
  });
}

/**
 * 503 read_model_unavailable: Redis, which holds the read model, cannot be
 * reached, or has not yet absorbed what this process recorded while it
 * could not be (decision 0079).
 */
export function readModelUnavailable(): DomainError {
  return unavailable('read_model_unavailable', 'The read model cannot be reached; retry after the number of seconds in Retry-After.', {
    retryAfterSeconds: READ_MODEL_RETRY_AFTER_SECONDS,
  });
}

/** Whether `error` says the read model cannot answer for now (rebuilt after a loss, or out of reach), rather than what it holds. */
export function isReadModelUnavailable(error: unknown): boolean {
  return error instanceof DomainError && (error.code === 'read_model_rebuilding' || error.code === 'read_model_unavailable');
}

/** What `read` answers from the read model, or while the model cannot answer (decisions 0078, 0079), what `fromLedger` answers from the store. */
export async function fromModelOrLedger<T>(read: () => Promise<T>, fromLedger: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (!isReadModelUnavailable(error)) throw error;
    return fromLedger();
  }
}

/** One page of an index's entries, each a document with the sort key it is listed under, and where the next page starts (null after the last). */
export interface IndexPage<T> {
  /** A document may be listed more than once, under different sort keys. */
  entries: Array<{ sortKey: string | null; document: T }>;
  nextCursor: string | null;
}

/**
 * Reads the live generation of a projection's model. Each read resolves the
 * pointer and reads the data in one Lua step, so it never mixes two
 * generations and never reads one a rebuild has just retired, at the cost of
 * no more round trips than a cached generation would need.
 */
export class ReadModel {
  private readonly layout: RedisLayout;
  /** How each projection's documents are stored, by its name. */
  private readonly codecs: ReadonlyMap<string, DocumentCodec>;

  /**
   * `projections`: those whose models this reads, for how their documents are
   * stored; a model not named here is read as canonical JSON, and a
   * compressed document in it fails to decode.
   * `progress`: this process's projection progress, when it also records
   * commands: a command it answered without waiting for a model being
   * rebuilt is not yet in it, and reads refuse until it is.
   */
  constructor(private readonly options: { redis: RedisClient; prefix: string; projections?: readonly AnyDocumentProjection[]; progress?: ProjectionProgress }) {
    this.layout = new RedisLayout(options.prefix, isRedisCluster(options.redis));
    this.codecs = new Map((options.projections ?? []).map((projection) => [projection.name, documentCodec(projection)]));
  }

  /** The document, or null when the model does not hold it. */
  async getDocument<T>(name: string, id: string): Promise<T | null> {
    const stored = (await this.read(READ_DOCUMENT, name, [docSuffix(id)])) as Buffer | null;
    return stored === null ? null : this.parse<T>(name, stored);
  }

  /** Every document of a group of a grouped projection (projection.ts, `grouped`), with its field, ordered by field. */
  async readGroup<T>(name: string, group: string): Promise<Array<{ field: string; document: T }>> {
    const reply = (await this.read(READ_GROUP, name, [groupSuffix(group)])) as Buffer[];
    const entries: Array<{ field: string; document: T }> = [];
    for (let i = 0; i < reply.length; i += 2) entries.push({ field: fromRedisText(reply[i].toString()), document: this.parse<T>(name, reply[i + 1]) });
    return entries.sort((a, b) => (a.field < b.field ? -1 : a.field > b.field ? 1 : 0));
  }

  /** Every document listed under `value` in `index`, ordered by sort key, then id. */
  async findByIndex<T>(name: string, index: string, value: string): Promise<T[]> {
    const docs = (await this.read(READ_INDEX, name, [indexSuffix(index, value), docSuffix('')])) as Buffer[];
    return docs.map((stored) => this.parse<T>(name, stored));
  }

  /**
   * Up to `limit` entries listed under `value` in `index`, in the order of
   * `findByIndex`, after the page `after` ended (from the first without it).
   * A page is short only when it is the last; `nextCursor` is null when no
   * entry follows the page.
   *
   * Each page is read from one generation in one step. A cursor is a place
   * in the order, not a snapshot: it stays valid across writes and
   * generation switches, and a document whose sort key changes between two
   * pages can show up on both or on neither.
   *
   * An entry whose document is missing (only a Redis that lost part of its
   * data has one) is skipped and the page filled from the entries after it;
   * if only such entries follow a full page, the page after it is empty.
   *
   * Throws InvalidCursorError when `after` is not a cursor this method returned.
   */
  async pageByIndex<T>(name: string, index: string, value: string, page: { after?: string | null; limit: number }): Promise<IndexPage<T>> {
    if (!Number.isInteger(page.limit) || page.limit < 1) throw new RangeError(`page limit must be a positive integer, not ${page.limit}`);
    const from = page.after == null ? '-' : `(${memberOfCursor(page.after)}`;
    const [docs, members, last] = (await this.read(READ_INDEX_PAGE, name, [indexSuffix(index, value), docSuffix(''), from, page.limit])) as [
      Buffer[],
      Buffer[],
      Buffer | null,
    ];
    const entries = docs.map((stored, i) => ({ sortKey: parseIndexMember(members[i].toString()).sortKey ?? null, document: this.parse<T>(name, stored) }));
    return { entries, nextCursor: last === null ? null : cursorOf(last.toString()) };
  }

  private parse<T>(name: string, stored: Buffer): T {
    return JSON.parse((this.codecs.get(name) ?? PLAIN).decode(stored)) as T;
  }

  /**
   * Runs a read script on the live generation of `name`; 503
   * read_model_rebuilding when the model is being rebuilt (decision 0078),
   * read_model_unavailable when Redis does not answer (decision 0079).
   */
  private async read(script: LuaScript, name: string, args: ReadonlyArray<string | number>): Promise<unknown> {
    const progress = this.options.progress;
    if (progress && !progress.holdsAnsweredCommands()) throw progress.isRebuilding() ? readModelRebuilding() : readModelUnavailable();
    try {
      return await runScript(this.options.redis, script, [this.layout.pointer(name)], [this.layout.modelBase(name), ...args], { replies: 'buffers' });
    } catch (error) {
      if (error instanceof Error && error.message.includes(READ_MODEL_REBUILDING_REPLY)) throw readModelRebuilding();
      // Anything but Redis's own reply is the connection failing: a request's read fails at once rather than wait for Redis.
      if (!(error instanceof ReplyError)) throw readModelUnavailable();
      throw error;
    }
  }
}
