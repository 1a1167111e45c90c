import { luaScript as script } from '@ledger/platform';

/**
 * The Lua scripts that make each step on a projection atomic. Redis runs a
 * script without interleaving other commands, so a compare-and-set on the
 * pointer followed by the writes is one indivisible step.
 *
 * The scripts touch many keys, and the read scripts name documents after
 * the generation the pointer holds: on a Redis Cluster, every key of a
 * projection is in one slot for them (redis-layout.ts, decision 0091).
 */
/**
 * Applies one batch only if the pointer still names the generation and the
 * checkpoint the writer read its documents at; then moves the checkpoint and
 * the digest. Then it reads the documents the next batch touches, if asked
 * (a rebuild knows its next batch): as this batch leaves them, without
 * another round trip.
 * KEYS[1] pointer; KEYS[i+1] the key written by operation i; after those, the keys of the ARGV[5] documents to read.
 * ARGV[1] expected generation, ARGV[2] expected checkpoint, ARGV[3] new checkpoint,
 * ARGV[4] the pointer's new digest field ('' leaves it as it is: the generation is untracked),
 * ARGV[5] how many documents to read, ARGV[6] 'hash' when they are fields of hashes (a grouped projection), else '',
 * then per operation i: ARGV[3i+4] set | del | hset | hdel | zadd | zrem, ARGV[3i+5] the hash field ('' for the others),
 * ARGV[3i+6] the value (a document, or an index member); then, for a grouped projection, the field of each document to read.
 * Returns {1, then the documents read (nil for one that does not exist)} when applied, {0} when the pointer had moved (nothing written).
 */
export const APPLY_BATCH = script(`
local pointer = redis.call('HMGET', KEYS[1], 'generation', 'checkpoint')
if pointer[1] ~= ARGV[1] or pointer[2] ~= ARGV[2] then return {0} end
local reads = tonumber(ARGV[5])
local operations = #KEYS - 1 - reads
for i = 1, operations do
  local key, op, field, value = KEYS[i + 1], ARGV[3 * i + 4], ARGV[3 * i + 5], ARGV[3 * i + 6]
  if op == 'set' then redis.call('SET', key, value)
  elseif op == 'del' then redis.call('DEL', key)
  elseif op == 'hset' then redis.call('HSET', key, field, value)
  elseif op == 'hdel' then redis.call('HDEL', key, field)
  elseif op == 'zadd' then redis.call('ZADD', key, 0, value)
  elseif op == 'zrem' then redis.call('ZREM', key, value)
  else return redis.error_reply('unknown operation ' .. tostring(op)) end
end
if ARGV[4] == '' then redis.call('HSET', KEYS[1], 'checkpoint', ARGV[3])
else redis.call('HSET', KEYS[1], 'checkpoint', ARGV[3], 'digest', ARGV[4]) end
local applied = {1}
local first = operations + 2
if ARGV[6] == 'hash' then
  -- The field of the document read from KEYS[first + j] is ARGV[3 * operations + 7 + j].
  for j = 0, reads - 1 do applied[#applied + 1] = redis.call('HGET', KEYS[first + j], ARGV[3 * operations + 7 + j]) end
  return applied
end
-- MGET in chunks: unpack puts its results on Lua's stack, which holds a few thousand.
while first <= #KEYS do
  local last = math.min(first + 499, #KEYS)
  for _, doc in ipairs(redis.call('MGET', unpack(KEYS, first, last))) do applied[#applied + 1] = doc end
  first = last + 1
end
return applied
`);

/**
 * Creates a live pointer at checkpoint 0, with the empty model's digest,
 * unless one exists (two processes finding it missing at once agree on one generation).
 * KEYS[1] pointer; ARGV[1] version, ARGV[2] generation, ARGV[3] the empty digest field, ARGV[4] the store's head (rebuildingTo).
 * Returns 1 when created.
 */
export const CREATE_POINTER = script(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'version', ARGV[1], 'generation', ARGV[2], 'checkpoint', '0', 'digest', ARGV[3], 'rebuildingTo', ARGV[4])
return 1
`);

/**
 * Opens the generation a rebuild fills: the one already being built for this
 * version (a rebuild that stopped half-way resumes), or a new one at
 * checkpoint 0, replacing a building generation of another version.
 * KEYS[1] building pointer; ARGV[1] version, ARGV[2] new generation, ARGV[3] the empty digest field.
 * Returns the generation a replaced pointer named ('' when none): the caller deletes its keys.
 */
export const OPEN_BUILDING = script(`
local current = redis.call('HMGET', KEYS[1], 'version', 'generation')
if current[1] == ARGV[1] then return '' end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'version', ARGV[1], 'generation', ARGV[2], 'checkpoint', '0', 'digest', ARGV[3])
return current[2] or ''
`);

/**
 * Makes the building generation live, provided it has absorbed at least
 * every event the live one has (so no reader loses a write it already saw)
 * and the live model is not of a newer version (old code must not replace it).
 * KEYS[1] live pointer, KEYS[2] building pointer; ARGV[1] building generation.
 * Returns {'switched', previous live generation or ''},
 * {'behind', live checkpoint}, {'superseded', live version}, or {'gone'} when
 * that generation is no longer being built (another process switched it).
 */
export const SWITCH_GENERATION = script(`
local building = redis.call('HMGET', KEYS[2], 'version', 'generation', 'checkpoint', 'digest')
if building[2] ~= ARGV[1] then return {'gone'} end
local live = redis.call('HMGET', KEYS[1], 'version', 'generation', 'checkpoint')
if live[1] and tonumber(live[1]) > tonumber(building[1]) then return {'superseded', live[1]} end
if live[3] and tonumber(live[3]) > tonumber(building[3]) then return {'behind', live[3]} end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'version', building[1], 'generation', building[2], 'checkpoint', building[3])
if building[4] then redis.call('HSET', KEYS[1], 'digest', building[4]) end
redis.call('DEL', KEYS[2])
return {'switched', live[2] or ''}
`);

/**
 * Points a partition of the building generation at where that generation
 * stands (its `base`), with the empty model's digest: the partition's digest
 * is then the change its documents make from there. A partition pointer
 * already on that generation and base (a fill that was stopped) is kept, so
 * the fill resumes.
 * KEYS[1] partition pointer, KEYS[2] building pointer; ARGV[1] the empty model's digest.
 * Returns 1, or 0 when nothing is being built.
 */
export const OPEN_PARTITION = script(`
local building = redis.call('HMGET', KEYS[2], 'version', 'generation', 'checkpoint')
if not building[2] then return 0 end
local partition = redis.call('HMGET', KEYS[1], 'generation', 'base')
if partition[1] == building[2] and partition[2] == building[3] then return 1 end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'version', building[1], 'generation', building[2], 'checkpoint', building[3], 'base', building[3], 'digest', building[3] .. ':' .. ARGV[1])
return 1
`);

/**
 * Moves the building generation to the position every one of its partitions
 * has filled it to, with the digest of their documents together, and drops
 * the partition pointers; only if the generation is still where the
 * partitions started from and each has reached that position.
 * KEYS[1] building pointer, KEYS[2..] partition pointers; ARGV[1] generation,
 * ARGV[2] base checkpoint, ARGV[3] the position reached, ARGV[4] the new
 * digest field ('' when the generation is untracked).
 * Returns 1 when merged, 0 otherwise (nothing changed).
 */
export const MERGE_PARTITIONS = script(`
local building = redis.call('HMGET', KEYS[1], 'generation', 'checkpoint')
if building[1] ~= ARGV[1] or building[2] ~= ARGV[2] then return 0 end
for i = 2, #KEYS do
  local partition = redis.call('HMGET', KEYS[i], 'generation', 'base', 'checkpoint')
  if partition[1] ~= ARGV[1] or partition[2] ~= ARGV[2] or partition[3] ~= ARGV[3] then return 0 end
end
redis.call('HSET', KEYS[1], 'checkpoint', ARGV[3])
if ARGV[4] ~= '' then redis.call('HSET', KEYS[1], 'digest', ARGV[4]) end
for i = 2, #KEYS do redis.call('DEL', KEYS[i]) end
return 1
`);

/** What a read script answers when the live generation cannot answer: ReadModel turns it into 503 read_model_rebuilding. */
export const READ_MODEL_REBUILDING_REPLY = 'READ_MODEL_REBUILDING';

/**
 * Lua: `generation`, the live generation of the pointer KEYS[1], for a read.
 * With no pointer (Redis lost the model and no runner has noticed yet), or a
 * pointer being rebuilt after such a loss that has not yet absorbed what the
 * store held then, the script ends with an error instead: an empty answer
 * there would be a wrong one (decision 0078).
 */
const LIVE_GENERATION = `
local live = redis.call('HMGET', KEYS[1], 'generation', 'checkpoint', 'rebuildingTo')
local generation = live[1]
if not generation or (live[3] and tonumber(live[2]) < tonumber(live[3])) then return redis.error_reply('${READ_MODEL_REBUILDING_REPLY}') end
`;

/**
 * Reads a document of the live generation, resolving the pointer in the same
 * step so a reader never mixes two generations.
 * KEYS[1] pointer; ARGV[1] model base, ARGV[2] document suffix. Returns the document as stored (document-compression.ts) or nil.
 */
export const READ_DOCUMENT = script(`${LIVE_GENERATION}
return redis.call('GET', ARGV[1] .. generation .. ARGV[2])
`);

/**
 * Reads a group of a grouped projection's documents in the live generation.
 * KEYS[1] pointer; ARGV[1] model base, ARGV[2] group suffix. Returns {field, document as stored, ...} (HGETALL).
 */
export const READ_GROUP = script(`${LIVE_GENERATION}
return redis.call('HGETALL', ARGV[1] .. generation .. ARGV[2])
`);

/** Lua: the document id at the end of an index member, after the first NUL (see index-member.ts). */
const MEMBER_ID = `
local function member_id(member)
  return string.sub(member, string.find(member, '\\0', 1, true) + 1)
end
`;

/**
 * Reads the documents of the live generation listed in one index.
 * KEYS[1] pointer; ARGV[1] model base, ARGV[2] index suffix, ARGV[3] document suffix before the id.
 * Returns the documents as stored in index order (sort key, then id).
 */
export const READ_INDEX = script(`${MEMBER_ID}${LIVE_GENERATION}
local base = ARGV[1] .. generation
local key = base .. ARGV[2]
local ids = {}
if redis.call('TYPE', key).ok == 'set' then
  -- A generation written before indexes were sorted sets (decision 0021) holds sets of ids, and
  -- stays live while this version rebuilds it: read it in the order it had, by id.
  ids = redis.call('SMEMBERS', key)
  table.sort(ids)
else
  for i, member in ipairs(redis.call('ZRANGE', key, '-', '+', 'BYLEX')) do ids[i] = member_id(member) end
end
local docs = {}
for _, id in ipairs(ids) do
  local doc = redis.call('GET', base .. ARGV[3] .. id)
  if doc then docs[#docs + 1] = doc end
end
return docs
`);

/**
 * Reads one page of an index of the live generation: up to ARGV[5] documents
 * listed after ARGV[4] ('-' for the first page, else '(' and the member the
 * previous page ended with). Members without a document are skipped and more
 * are read in their place, so only the last page is short.
 * KEYS[1] pointer; ARGV[1] model base, ARGV[2] index suffix, ARGV[3] document suffix before the id.
 * Returns {the documents as stored, the member each was listed under, the last member read, or nil when no member follows it}.
 */
export const READ_INDEX_PAGE = script(`${MEMBER_ID}${LIVE_GENERATION}
local base = ARGV[1] .. generation
local key, from, limit = base .. ARGV[2], ARGV[4], tonumber(ARGV[5])
local docs, read, last = {}, {}, false
while #docs < limit do
  local wanted = limit - #docs
  local members = redis.call('ZRANGE', key, from, '+', 'BYLEX', 'LIMIT', 0, wanted)
  for _, member in ipairs(members) do
    local doc = redis.call('GET', base .. ARGV[3] .. member_id(member))
    if doc then
      docs[#docs + 1] = doc
      read[#read + 1] = member
    end
    last = member
  end
  if #members < wanted then return {docs, read, false} end
  from = '(' .. last
end
if #redis.call('ZRANGE', key, from, '+', 'BYLEX', 'LIMIT', 0, 1) == 0 then return {docs, read, false} end
return {docs, read, last}
`);
