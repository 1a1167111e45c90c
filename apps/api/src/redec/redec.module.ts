import { DynamicModule, Module } from '@nestjs/common';
import { LedgerConfig } from '@ledger/platform';
import { AccessAggregates } from '@ledger/redec';
import { ReadYourWrites } from '../read-your-writes';
import { RequestCommands } from '../request-commands';
import { ConsentCertificatesModule } from './artifacts/consent-certificates.module';
import { bankingCalendarProvider } from './banking-calendar.provider';
import { ArtifactHttpController } from './consents/artifact/artifact.http.controller';
import { EvidenceHttpController } from './consents/evidence/evidence.http.controller';
import { ConsentExportsHttpController } from './consents/export/consent-exports.http.controller';
import { GetConsentHttpController } from './consents/get/get-consent.http.controller';
import { GetConsentHandler } from './consents/get/get-consent.query';
import { LookupConsentsHttpController } from './consents/lookup/lookup-consents.http.controller';
import { LookupConsentsHandler } from './consents/lookup/lookup-consents.query';
import { RecordNotificationEvidenceHandler } from './consents/notification-evidence/notification-evidence.command';
import { NotificationEvidenceHttpController } from './consents/notification-evidence/notification-evidence.http.controller';
import { CreateInteractionHttpController } from './interactions/create/create-interaction.http.controller';
import { CreateInteractionHandler } from './interactions/create/create-interaction.command';
import { GrantConsentHandler } from './interactions/grant/grant.command';
import { GrantHttpController } from './interactions/grant/grant.http.controller';
import { AnnulBindingHandler, BindObligationHandler } from './obligations/bind/bind-obligation.command';
import { BindObligationHttpController } from './obligations/bind/bind-obligation.http.controller';
import { ConsentCodeHttpController } from './obligations/consent-code/consent-code.http.controller';
import { ConsentCodeHandler } from './obligations/consent-code/consent-code.query';
import { AuthorizeAccessHandler, ConfirmAccessHandler } from './accesses/access.commands';
import { AccessesHttpController } from './accesses/accesses.http.controller';
import { ContradictedAccessesHttpController } from './accesses/contradicted-accesses.http.controller';
import { RevokeConsentHandler } from './consents/revoke/revoke.command';
import { RevokeHttpController } from './consents/revoke/revoke.http.controller';
import { AnnulCreditExtensionHandler, EndCreditExtensionHandler, RegisterCreditExtensionHandler } from './consents/credit-extensions/credit-extension.commands';
import { CreditExtensionsHttpController } from './consents/credit-extensions/credit-extensions.http.controller';
import { OverdueNotificationsHttpController } from './notifications/overdue-notifications.http.controller';
import { OverdueNotificationsHandler } from './notifications/overdue-notifications.query';
import { ReconciliationHttpController } from './obligations/reconciliation/reconciliation.http.controller';

/** The REDEC boundary: interactions, grant, the consent's lifecycle, access coordination and the regulatory reads. */
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
        ConsentExportsHttpController,
        EvidenceHttpController,
        ArtifactHttpController,
        BindObligationHttpController,
        ConsentCodeHttpController,
        NotificationEvidenceHttpController,
        RevokeHttpController,
        CreditExtensionsHttpController,
        AccessesHttpController,
        ContradictedAccessesHttpController,
        OverdueNotificationsHttpController,
        ReconciliationHttpController,
      ],
      providers: [
        bankingCalendarProvider(config),
        ReadYourWrites,
        RequestCommands,
        CreateInteractionHandler,
        GrantConsentHandler,
        GetConsentHandler,
        LookupConsentsHandler,
        OverdueNotificationsHandler,
        BindObligationHandler,
        AnnulBindingHandler,
        ConsentCodeHandler,
        RecordNotificationEvidenceHandler,
        RevokeConsentHandler,
        RegisterCreditExtensionHandler,
        EndCreditExtensionHandler,
        AnnulCreditExtensionHandler,
        AccessAggregates,
        AuthorizeAccessHandler,
        ConfirmAccessHandler,
      ],
    };
  }
}
