import { DynamicModule, Module } from '@nestjs/common';
import { LedgerConfig } from '@ledger/platform';
import { ReadYourWrites } from '../read-your-writes';
import { ConsentCertificatesModule } from './artifacts/consent-certificates.module';
import { bankingCalendarProvider } from './banking-calendar.provider';
import { ArtifactHttpController } from './consents/artifact/artifact.http.controller';
import { EvidenceHttpController } from './consents/evidence/evidence.http.controller';
import { CustomerConsentsHttpController } from './consents/customer-consents/customer-consents.http.controller';
import { CustomerConsentsHandler } from './consents/customer-consents/customer-consents.query';
import { GetConsentHttpController } from './consents/get/get-consent.http.controller';
import { GetConsentHandler } from './consents/get/get-consent.query';
import { LookupConsentsHttpController } from './consents/lookup/lookup-consents.http.controller';
import { LookupConsentsHandler } from './consents/lookup/lookup-consents.query';
import { CreateInteractionHttpController } from './interactions/create/create-interaction.http.controller';
import { CreateInteractionHandler } from './interactions/create/create-interaction.command';
import { GrantConsentHandler } from './interactions/grant/grant.command';
import { GrantHttpController } from './interactions/grant/grant.http.controller';

/** The REDEC capture boundary: interactions, grant and the regulatory reads. */
@Module({})
export class RedecModule {
  static forRoot(config: LedgerConfig): DynamicModule {
    return {
      module: RedecModule,
      imports: [ConsentCertificatesModule],
      controllers: [
        CreateInteractionHttpController,
        GrantHttpController,
        GetConsentHttpController,
        LookupConsentsHttpController,
        CustomerConsentsHttpController,
        EvidenceHttpController,
        ArtifactHttpController,
      ],
      providers: [
        bankingCalendarProvider(config),
        ReadYourWrites,
        CreateInteractionHandler,
        GrantConsentHandler,
        GetConsentHandler,
        LookupConsentsHandler,
        CustomerConsentsHandler,
      ],
    };
  }
}
