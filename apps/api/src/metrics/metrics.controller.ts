import { Controller, Get, Header } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from '@ledger/http';
import { EXPOSITION_CONTENT_TYPE, renderExposition } from '@ledger/webhooks';
import { MetricsCollector } from './metrics.collector';

/**
 * Prometheus scrape endpoint (issue 5): queue depth, delivery failures and
 * latency, projection lag, in the text exposition format 0.0.4. An
 * operations route like /health, so not part of the /v1 API nor of its
 * OpenAPI description.
 *
 * Public, as /health is: a scraper holds no tenant's API key, and API keys
 * are tenant-scoped, so no key could rightly open it. What it shows is safe
 * to leave open: instance-wide aggregate counts only, whose labels come from
 * fixed sets (outcome, status class, queue, job state, projection, source);
 * never a tenant, an endpoint, a URL, a message, an identifier or a secret.
 * The figures do reveal the instance's overall volume; a deployment that
 * exposes the API to the internet can keep /metrics to its internal
 * network at the proxy, as it may /health.
 */
@ApiExcludeController()
@Controller('metrics')
export class MetricsController {
  constructor(private readonly collector: MetricsCollector) {}

  @Get()
  @Public()
  @Header('Content-Type', EXPOSITION_CONTENT_TYPE)
  @Header('Cache-Control', 'no-store')
  async metrics(): Promise<string> {
    return renderExposition(await this.collector.collect());
  }
}
