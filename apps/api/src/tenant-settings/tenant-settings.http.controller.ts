import { Body, Controller, Get, Inject, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { EVENT_STORE, EventStore } from '@ledger/event-store';
import { CurrentPrincipal, RequireAnyScope, RequireScopes } from '@ledger/http';
import { Tenant, configureTenant, loadTenant } from '@ledger/ledger';
import { Principal, Scopes, notFound } from '@ledger/platform';
import { ProblemResponses } from '../openapi/problem-responses';
import { RequestCommands } from '../request-commands';
import { TenantSettingsDto, TenantSettingsRequestDto } from './tenant-settings.dto';

/** The calling tenant's own settings, read from its stream (there is no read model of tenants to lag behind). */
@ApiTags('tenant')
@ApiBearerAuth()
@Controller('v1/tenant-settings')
export class TenantSettingsHttpController {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly commands: RequestCommands,
  ) {}

  @Get()
  @RequireAnyScope(Scopes.ADMIN, Scopes.READ)
  @ApiOperation({ operationId: 'getTenantSettings', summary: "The tenant's settings", description: 'Scope `consent:admin` or `consent:read` (which covers every GET).' })
  @ApiOkResponse({ type: TenantSettingsDto })
  async get(@CurrentPrincipal() principal: Principal): Promise<TenantSettingsDto> {
    const tenant = await loadTenant(this.store, principal.tenantId);
    if (!tenant) throw notFound('tenant');
    return settingsView(tenant);
  }

  @Put()
  @RequireScopes(Scopes.ADMIN)
  @ApiOperation({
    operationId: 'putTenantSettings',
    summary: "Set the tenant's settings",
    description:
      'Replaces the settings: `institutionCode`, the CMF code printed in the header of RDC30, RDC31 and RDC40 (docs/regulatory-reports.md), `weeklyReports` (default false), `dailyRightsReport` (default false) and `scheduledErasure` (default false). A change is a fact of the tenant; setting what is already in force records nothing. ' +
      'Reports already rendered keep the code they were rendered with. Also `ledger tenant configure --tenant T [--institution-code NNNNNNNNNN] [--weekly-reports on|off] [--daily-rights-report on|off] [--scheduled-erasure on|off]`. Scope `consent:admin`.',
  })
  @ApiOkResponse({ type: TenantSettingsDto })
  @ProblemResponses({ 409: ['concurrent_change'] })
  async put(@Body() body: TenantSettingsRequestDto): Promise<TenantSettingsDto> {
    const context = this.commands.context();
    const { tenant } = await configureTenant(this.store, context.tenantId, {
        institutionCode: body.institutionCode,
        weeklyReports: body.weeklyReports ?? false,
        dailyRightsReport: body.dailyRightsReport ?? false,
        scheduledErasure: body.scheduledErasure ?? false,
      }, context);
    return settingsView(tenant);
  }
}

function settingsView(tenant: Tenant): TenantSettingsDto {
  const { institutionCode, weeklyReports, dailyRightsReport, scheduledErasure } = tenant.settings;
  return { institutionCode, weeklyReports, dailyRightsReport, scheduledErasure, updatedAt: tenant.settingsChangedAt };
}
