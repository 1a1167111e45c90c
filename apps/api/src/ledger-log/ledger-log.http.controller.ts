import { Controller, Get, Param, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiProduces, ApiProperty, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { IsInt, Min } from 'class-validator';
import { consistencyProof, cosignedNote, hashTile, inclusionProof } from '@ledger/ledger-log';
import { CurrentPrincipal, RequireScopes } from '@ledger/http';
import { Principal, Scopes, notFound, validationError } from '@ledger/platform';
import { TilePathError, formatProofFile, parseTilePath } from '@ledger/transparency';
import { QueryInteger } from '../dto-fields';
import { ResourceIdPipe } from '../resource-id.pipe';
import { ProblemResponses } from '../openapi/problem-responses';
import { LedgerLogService } from './ledger-log.service';

const TILE_ROUTE = '/v1/ledger/tile/';

export class ConsistencyQueryDto {
  @ApiProperty({ type: 'integer', minimum: 1, description: 'The smaller tree size (a checkpoint you hold).' })
  @QueryInteger(15)
  @IsInt()
  @Min(1)
  from!: number;

  @ApiProperty({ type: 'integer', minimum: 1, description: 'The larger tree size, at most the latest checkpoint\'s.' })
  @QueryInteger(15)
  @IsInt()
  @Min(1)
  to!: number;
}

class ConsistencyProofDto {
  @ApiProperty({ type: 'integer' }) size1!: number;
  @ApiProperty({ type: 'integer' }) size2!: number;
  @ApiProperty({ type: [String], description: 'RFC 9162 consistency proof, base64 hashes.' }) proof!: string[];
}

/**
 * The verifiable ledger over HTTP (decision 0058), for auditors (scope
 * consent:audit): the latest checkpoint, the log's verifier key, hash tiles
 * any tlog client reads, an inclusion proof of one of the tenant's events,
 * and consistency proofs between tree sizes. Hashes reveal nothing of an
 * event; a leaf is only ever given for the key's own tenant's event.
 */
@ApiTags('audit')
@ApiBearerAuth()
@Controller('v1/ledger')
export class LedgerLogHttpController {
  constructor(private readonly ledgerLog: LedgerLogService) {}

  @Get('checkpoint')
  @ProblemResponses({ 503: ['ledger_log_unavailable'] })
  @RequireScopes(Scopes.AUDIT)
  @ApiOperation({
    operationId: 'getLedgerCheckpoint',
    summary: "The latest checkpoint of the ledger's Merkle tree",
    description:
      'A C2SP tlog-checkpoint signed as a C2SP signed note with Ed25519 by the log (`GET /v1/ledger/verifier-key`), followed by the cosignature lines of the witnesses that cosigned it (C2SP tlog-cosignature). ' +
      'One is issued when the tree has grown, at most every `LEDGER_CHECKPOINT_INTERVAL_MS`; keep the ones you fetch: `ledger audit verify --checkpoint FILE` checks the ledger against them. Scope `consent:audit`.',
  })
  @ApiProduces('text/plain')
  @ApiOkResponse({ schema: { type: 'string' } })
  async checkpoint(@Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    const checkpoint = await this.ledgerLog.checkpointIncluding();
    void reply.header('content-type', 'text/plain; charset=utf-8');
    return cosignedNote(this.ledgerLog.log, checkpoint);
  }

  @Get('verifier-key')
  @RequireScopes(Scopes.AUDIT)
  @ApiOperation({ operationId: 'getLedgerVerifierKey', summary: "The log's verifier key", description: 'One line, the C2SP vkey `<origin>+<8 hex key ID>+<base64 of 0x01 and the Ed25519 public key>`. Compare it with the one the bank gave you out of band before trusting it. Scope `consent:audit`.' })
  @ApiProduces('text/plain')
  @ApiOkResponse({ schema: { type: 'string' } })
  verifierKey(@Res({ passthrough: true }) reply: FastifyReply): string {
    void reply.header('content-type', 'text/plain; charset=utf-8');
    return `${this.ledgerLog.identity.verifierKey}\n`;
  }

  @Get('tile/*')
  @ProblemResponses({ 404: ['NOT_FOUND'], 503: ['ledger_log_unavailable'] })
  @ApiParam({ name: 'path', description: 'The tile\'s path after `tile/`: `<L>/<N>[.p/<W>]`, N in tlog-tiles\' 3-digit groups (`x001/x234/067`).', schema: { type: 'string' } })
  @RequireScopes(Scopes.AUDIT)
  @ApiOperation({
    operationId: 'getLedgerTile',
    summary: 'A hash tile (C2SP tlog-tiles)',
    description:
      '`/v1/ledger/tile/<L>/<N>[.p/<W>]`: the hashes of tree level 8·L from index 256·N, concatenated (32 bytes each), of the tree of the latest checkpoint; a partial tile only at the width that tree has. No entry tiles: leaves are given only with proofs of one\'s own events. Scope `consent:audit`.',
  })
  @ApiProduces('application/octet-stream')
  @ApiOkResponse({ schema: { type: 'string', format: 'binary' } })
  async tile(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<Buffer> {
    const path = request.url.split('?')[0].slice(TILE_ROUTE.length);
    let tile;
    try {
      tile = parseTilePath(path);
    } catch (error) {
      if (error instanceof TilePathError) throw notFound('tile');
      throw error;
    }
    const checkpoint = await this.ledgerLog.checkpointIncluding();
    const hashes = await hashTile(this.ledgerLog.log, tile, checkpoint.size);
    if (hashes === undefined) throw notFound('tile');
    void reply.header('content-type', 'application/octet-stream');
    return hashes;
  }

  @Get('events/:eventId/proof')
  @ProblemResponses({ 503: ['ledger_log_unavailable'] })
  @RequireScopes(Scopes.AUDIT)
  @ApiOperation({
    operationId: 'getEventInclusionProof',
    summary: "An inclusion proof of one of the tenant's events",
    description:
      'A `c2sp.org/tlog-proof@v1` file: its `extra` line is the event\'s leaf bytes (base64), then its leaf index, the proof\'s hashes and the checkpoint (with cosignatures) it leads to, the latest, issued first if none includes the event yet. 404 for an event of another tenant. Scope `consent:audit`.',
  })
  @ApiProduces('text/plain')
  @ApiOkResponse({ schema: { type: 'string' } })
  async proof(
    @Param('eventId', new ResourceIdPipe('event')) eventId: string,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    const log = this.ledgerLog.log;
    const [leaf] = await log.leavesOf([eventId]);
    if (leaf === undefined || leaf.tenantId !== principal.tenantId) throw notFound('event');
    const checkpoint = await this.ledgerLog.checkpointIncluding(leaf.leafIndex);
    const proof = await inclusionProof(log, leaf.leafIndex, checkpoint.size);
    void reply.header('content-type', 'text/plain; charset=utf-8');
    return formatProofFile({ index: leaf.leafIndex, leafExtra: leaf.leaf, proof, checkpointNote: await cosignedNote(log, checkpoint) });
  }

  @Get('consistency')
  @ProblemResponses({ 503: ['ledger_log_unavailable'] })
  @RequireScopes(Scopes.AUDIT)
  @ApiOperation({
    operationId: 'getLedgerConsistencyProof',
    summary: 'A consistency proof between two tree sizes',
    description: 'RFC 9162 2.1.4: that the tree of size `to` extends the one of size `from` (1 ≤ from ≤ to ≤ the latest checkpoint\'s size). Check it against the two checkpoints\' roots. Scope `consent:audit`.',
  })
  @ApiOkResponse({ type: ConsistencyProofDto })
  async consistency(@Query() query: ConsistencyQueryDto): Promise<ConsistencyProofDto> {
    const { from, to } = query;
    const latest = await this.ledgerLog.checkpointIncluding();
    if (from > to || to > latest.size) throw validationError(`from and to must satisfy 1 <= from <= to <= ${latest.size}, the latest checkpoint's size`);
    const proof = from === to ? [] : await consistencyProof(this.ledgerLog.log, from, to);
    return { size1: from, size2: to, proof: proof.map((hash) => hash.toString('base64')) };
  }
}
