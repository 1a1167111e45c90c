import { RightsRequestBlockLifted, RightsRequestKind, RightsRequestResolved, RightsRequestState } from './rights-request.events';

/**
 * The facts that decide whether a blocking request is in force: its
 * resolution and its lifting. They are recorded in the data subject's
 * stream of processing blocks rather than the request's own (decision
 * 0068), so that authorize, which knows the customer from the consent, reads
 * every block of the subject in one stream and records its decision only
 * while that stream stands where it read it.
 */
export type ProcessingBlockFact = RightsRequestResolved | RightsRequestBlockLifted;

type Block = Pick<RightsRequestState, 'kind' | 'outcome' | 'resolvedAt' | 'blockLiftedAt'>;

/** A data subject's resolved blocking requests, by id. */
export type ProcessingBlocks = Readonly<Record<string, Block>>;

/** Whether a fact of a request of `kind` belongs in the data subject's stream of processing blocks. */
export function isProcessingBlockFact(kind: RightsRequestKind, fact: { type: string }): fact is ProcessingBlockFact {
  return kind === 'blocking' && (fact.type === 'RightsRequestResolved' || fact.type === 'RightsRequestBlockLifted');
}

export function evolveProcessingBlocks(state: ProcessingBlocks | null, event: ProcessingBlockFact): ProcessingBlocks {
  const blocks = state ?? {};
  switch (event.type) {
    case 'RightsRequestResolved': {
      const { rightsRequestId, outcome, resolvedAt } = event.data;
      return { ...blocks, [rightsRequestId]: { kind: 'blocking', outcome, resolvedAt, blockLiftedAt: null } };
    }
    case 'RightsRequestBlockLifted': {
      const { rightsRequestId, liftedAt } = event.data;
      const block = blocks[rightsRequestId];
      return block ? { ...blocks, [rightsRequestId]: { ...block, blockLiftedAt: liftedAt } } : blocks;
    }
  }
}

/** Whether the request is a block in force at `instant`: approved (in whole or in part) by then, and not lifted by then. */
export function blocksProcessingAt(request: Block, instant: number): boolean {
  const { kind, outcome, resolvedAt, blockLiftedAt } = request;
  return kind === 'blocking' && outcome !== null && outcome !== 'rejected' && resolvedAt !== null && resolvedAt <= instant && (blockLiftedAt === null || blockLiftedAt > instant);
}

/** Whether any of the data subject's blocks is in force at `instant`. */
export function processingBlockedAt(blocks: ProcessingBlocks | null, instant: number): boolean {
  return blocks !== null && Object.values(blocks).some((block) => blocksProcessingAt(block, instant));
}
