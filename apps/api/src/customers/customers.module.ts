import { Module } from '@nestjs/common';
import { ReadYourWrites } from '../read-your-writes';
import { RequestCommands } from '../request-commands';
import { PlaceLegalHoldHandler, ReleaseLegalHoldHandler } from './legal-holds/legal-holds.commands';
import { LegalHoldsHttpController } from './legal-holds/legal-holds.http.controller';
import { ResolveCustomerHandler } from './resolve/resolve-customer.command';
import { ResolveCustomerHttpController } from './resolve/resolve-customer.http.controller';

@Module({
  controllers: [ResolveCustomerHttpController, LegalHoldsHttpController],
  providers: [ResolveCustomerHandler, PlaceLegalHoldHandler, ReleaseLegalHoldHandler, ReadYourWrites, RequestCommands],
})
export class CustomersModule {}
