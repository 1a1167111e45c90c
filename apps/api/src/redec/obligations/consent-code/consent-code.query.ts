import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { ReadModel } from '@ledger/projections';
import { readObligationLookup } from '@ledger/redec';
import { ConsentCodeDto } from './consent-code.dto';

export class ConsentCodeQuery {
  constructor(
    readonly tenantId: string,
    readonly sourceSystem: string,
    readonly obligationReference: string,
  ) {}
}

@QueryHandler(ConsentCodeQuery)
export class ConsentCodeHandler implements IQueryHandler<ConsentCodeQuery, ConsentCodeDto> {
  constructor(private readonly readModel: ReadModel) {}

  /** Inside the tenant: another tenant's obligation has no binding here, so it is `unresolved`. */
  async execute({ tenantId, sourceSystem, obligationReference }: ConsentCodeQuery): Promise<ConsentCodeDto> {
    return { sourceSystem, obligationReference, ...(await readObligationLookup(this.readModel, tenantId, { sourceSystem, obligationReference })) };
  }
}
