import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler, IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { BLOB_STORE, BlobStore } from '@ledger/artifacts';
import {
  GeneralConsentRevoked,
  GeneralConsentState,
  GeneralGrantResult,
  GeneralRevocationRequest,
  grantGeneralConsent,
  readGeneralConsent,
  revokeGeneralConsent,
} from '@ledger/consents';
import { notFound } from '@ledger/platform';
import { ReadModel } from '@ledger/projections';
import { EvidenceInput, holdEvidence } from '@ledger/redec';
import { RequestCommands } from '../request-commands';

export class GrantGeneralConsentCommand {
  constructor(
    readonly interactionId: string,
    readonly request: { occurredAt: number; sourceSystem: string; sourceReference: string; evidence: EvidenceInput },
    /** SHA-256 of the request as received: an identical retry answers the first grant. */
    readonly requestSha256: string,
  ) {}
}

@CommandHandler(GrantGeneralConsentCommand)
export class GrantGeneralConsentHandler implements ICommandHandler<GrantGeneralConsentCommand, GeneralGrantResult> {
  constructor(
    private readonly commands: RequestCommands,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
  ) {}

  execute({ interactionId, request, requestSha256 }: GrantGeneralConsentCommand): Promise<GeneralGrantResult> {
    return this.commands.run(async (store, context) => {
      const evidence = await holdEvidence(this.blobs, context.tenantId, request.evidence);
      const granted = await grantGeneralConsent(store, interactionId, { ...request, evidence }, requestSha256, context);
      return { result: granted, position: granted.position };
    });
  }
}

export class RevokeGeneralConsentCommand {
  constructor(
    readonly consentId: string,
    readonly request: GeneralRevocationRequest,
  ) {}
}

@CommandHandler(RevokeGeneralConsentCommand)
export class RevokeGeneralConsentHandler implements ICommandHandler<RevokeGeneralConsentCommand, GeneralConsentRevoked['data']> {
  constructor(private readonly commands: RequestCommands) {}

  execute({ consentId, request }: RevokeGeneralConsentCommand): Promise<GeneralConsentRevoked['data']> {
    return this.commands.run(async (store, context) => {
      const { revocation, position } = await revokeGeneralConsent(store, consentId, request, context);
      return { result: revocation, position };
    });
  }
}

export class GetGeneralConsentQuery {
  constructor(
    readonly tenantId: string,
    readonly consentId: string,
  ) {}
}

@QueryHandler(GetGeneralConsentQuery)
export class GetGeneralConsentHandler implements IQueryHandler<GetGeneralConsentQuery, GeneralConsentState> {
  constructor(private readonly readModel: ReadModel) {}

  async execute({ tenantId, consentId }: GetGeneralConsentQuery): Promise<GeneralConsentState> {
    const consent = await readGeneralConsent(this.readModel, tenantId, consentId);
    if (!consent) throw notFound('consent');
    return consent;
  }
}
