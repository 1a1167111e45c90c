import { DynamicModule, FactoryProvider, Inject, Module } from '@nestjs/common';
import { QUEUES_OPTIONS, QueueRuntime, QueuesModuleOptions } from './queue-runtime';

/** The injection token of a declared queue's BullMQ `Queue`. */
export function queueToken(name: string): string {
  return `ledger:queue:${name}`;
}

/** Injects the BullMQ `Queue` of a declared queue: `@InjectQueue(webhookDeliveries.name) queue: Queue<Delivery>`. */
export function InjectQueue(name: string): PropertyDecorator & ParameterDecorator {
  return Inject(queueToken(name));
}

/**
 * BullMQ for the whole application. Imported once, by the root module of
 * apps/api and of apps/worker, with the same list of declared queues; global
 * so that any library can inject a queue or QueueRuntime. Needs
 * `LEDGER_CONFIG` to be provided globally.
 */
@Module({})
export class QueuesModule {
  static forRoot(options: QueuesModuleOptions): DynamicModule {
    const names = options.queues.map((declaration) => declaration.name);
    const repeated = names.find((name, index) => names.indexOf(name) !== index);
    if (repeated !== undefined) throw new Error(`queue "${repeated}" is declared twice`);

    const queueProviders: FactoryProvider[] = names.map((name) => ({
      provide: queueToken(name),
      useFactory: (runtime: QueueRuntime) => runtime.queue(name),
      inject: [QueueRuntime],
    }));
    return {
      module: QueuesModule,
      global: true,
      providers: [{ provide: QUEUES_OPTIONS, useValue: options }, QueueRuntime, ...queueProviders],
      exports: [QueueRuntime, ...queueProviders.map((provider) => provider.provide)],
    };
  }
}
