import { Body, Controller, Get, Inject, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { EVENT_STORE, EventStore } from '@ledger/event-store';
import { CurrentPrincipal, RequireAnyScope, RequireScopes } from '@ledger/http';
import { LogoMediaType, Tenant, configureTenant, loadTenant } from '@ledger/ledger';
import { Principal, Scopes, notFound } from '@ledger/platform';
import { ProblemResponses } from '../openapi/problem-responses';
import { RequestCommands } from '../request-commands';
import { TenantPresentationDto, TenantSettingsDto, TenantSettingsRequestDto } from './tenant-settings.dto';

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
      'Replaces these settings (the presentation has its own route and stays): `institutionCode`, the CMF code printed in the header of RDC30, RDC31 and RDC40 (docs/regulatory-reports.md), `weeklyReports` (default false), `dailyRightsReport` (default false) and `scheduledErasure` (default false). A change is a fact of the tenant; setting what is already in force records nothing. ' +
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

  @Put('presentation')
  @RequireScopes(Scopes.ADMIN)
  @ApiOperation({
    operationId: 'putTenantPresentation',
    summary: 'Set how the bank appears to people',
    description:
      "Replaces the presentation: the bank's `displayName` shown at the top of the consent page, an optional `logo` beside it (PNG, JPEG or SVG, at most 32 KiB), its `accentColor` (at least 4.5:1 against white, else 400 `insufficient_contrast`), " +
      'and `terms`, what its codes mean in words a person reads: purposes, objectives, data categories, media, channels and authentication methods. A page never shows a person a code without its meaning: ' +
      "opening a session whose configurations use a code with no meaning here or in the service's own table is 409 `readable_terms_missing`, naming each missing entry " +
      '(docs/embedded-capture.md, "What the page shows"). Pages opened later show the presentation as it is when they are shown. A change is a fact of the tenant; setting what is in force records nothing. Scope `consent:admin`.',
  })
  @ApiOkResponse({ type: TenantSettingsDto })
  @ProblemResponses({ 409: ['concurrent_change'] })
  async putPresentation(@Body() body: TenantPresentationDto): Promise<TenantSettingsDto> {
    const context = this.commands.context();
    const { displayName, accentColor, terms, logo } = body;
    const presentation = { displayName, accentColor, terms: { ...terms }, logo: logo ? { mediaType: logo.mediaType as LogoMediaType, base64: logo.base64 } : null };
    const { tenant } = await configureTenant(this.store, context.tenantId, { presentation }, context);
    return settingsView(tenant);
  }
}

function settingsView(tenant: Tenant): TenantSettingsDto {
  const { institutionCode, weeklyReports, dailyRightsReport, scheduledErasure, presentation } = tenant.settings;
  return { institutionCode, weeklyReports, dailyRightsReport, scheduledErasure, presentation, updatedAt: tenant.settingsChangedAt };
}
