import { Module } from '@nestjs/common';
import { ReadYourWrites } from '../read-your-writes';
import { ResolveCustomerHandler } from './resolve/resolve-customer.command';
import { ResolveCustomerHttpController } from './resolve/resolve-customer.http.controller';

@Module({
  controllers: [ResolveCustomerHttpController],
  providers: [ResolveCustomerHandler, ReadYourWrites],
})
export class CustomersModule {}
