import { Module } from '@nestjs/common';
import { ReadYourWrites } from '../read-your-writes';
import { RequestCommands } from '../request-commands';
import { ConsentComplianceHandler, ConsentComplianceHttpController } from './consent-compliance';
import { CustomerConsentsHttpController } from './customer-consents.http.controller';
import { CustomerConsentsHandler } from './customer-consents.query';
import { GetGeneralConsentHandler, GrantGeneralConsentHandler, RevokeGeneralConsentHandler } from './general-consent.commands';
import { GeneralConsentsHttpController } from './general-consents.http.controller';

/** Consents of both kinds as the customer holds them: general consents, the customer's list, and compliance by template. */
@Module({
  controllers: [GeneralConsentsHttpController, CustomerConsentsHttpController, ConsentComplianceHttpController],
  providers: [ReadYourWrites, RequestCommands, GrantGeneralConsentHandler, RevokeGeneralConsentHandler, GetGeneralConsentHandler, CustomerConsentsHandler, ConsentComplianceHandler],
})
export class ConsentsModule {}
