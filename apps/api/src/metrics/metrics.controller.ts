import { Controller, Get, Header, Inject } from '@nestjs/common';
import type { MetricsRegistry } from '@ledger/metrics';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from '@ledger/http';
import { EXPOSITION_CONTENT_TYPE, renderExposition } from '@ledger/webhooks';
import { MetricsCollector } from './metrics.collector';
import { METRICS_REGISTRY } from './metrics-registry.provider';

/**
 * Prometheus scrape endpoint (issue 5): queue depth, delivery failures and
 * latency, projection lag (the instance's, from Redis), then this process's
 * runtime, build and HTTP request families (issue 17), in the text
 * exposition format 0.0.4. An
 * operations route like /health, so not part of the /v1 API nor of its
 * OpenAPI description.
 *
 * Public, as /health is: a scraper holds no tenant's API key, and API keys
 * are tenant-scoped, so no key could rightly open it. What it shows is safe
 * to leave open: instance-wide aggregate counts only, whose labels come from
 * fixed sets (outcome, status class, queue, job state, projection, source,
 * route template, method);
 * never a tenant, an endpoint, a URL, a message, an identifier or a secret.
 * The figures do reveal the instance's overall volume; a deployment that
 * exposes the API to the internet can keep /metrics to its internal
 * network at the proxy, as it may /health.
 */
@ApiExcludeController()
@Controller('metrics')
export class MetricsController {
  constructor(
    private readonly collector: MetricsCollector,
    @Inject(METRICS_REGISTRY) private readonly registry: MetricsRegistry,
  ) {}

  @Get()
  @Public()
  @Header('Content-Type', EXPOSITION_CONTENT_TYPE)
  @Header('Cache-Control', 'no-store')
  async metrics(): Promise<string> {
    const [ledger, process] = await Promise.all([this.collector.collect(), this.registry.metrics()]);
    return renderExposition(ledger) + process;
  }
}
