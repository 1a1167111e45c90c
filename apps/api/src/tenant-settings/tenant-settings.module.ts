import { Module } from '@nestjs/common';
import { ReadYourWrites } from '../read-your-writes';
import { RequestCommands } from '../request-commands';
import { TenantSettingsHttpController } from './tenant-settings.http.controller';

@Module({ controllers: [TenantSettingsHttpController], providers: [ReadYourWrites, RequestCommands] })
export class TenantSettingsModule {}
