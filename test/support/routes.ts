import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import { ApiApp } from './api-app';

/** A served route: its method, its path as OpenAPI writes it, its handler and the names of the handler's class and method. */
export interface ServedRoute {
  method: string;
  path: string;
  handler: object;
  controller: string;
  name: string;
}

/** Every route the application really serves, read from Nest's own metadata, with its path as OpenAPI writes it. */
export function servedRoutes(api: ApiApp): ServedRoute[] {
  const routes: ServedRoute[] = [];
  for (const module of api.app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as { name: string; prototype: Record<string, unknown> } | null;
      if (!controller) continue;
      const base = Reflect.getMetadata(PATH_METADATA, controller) as string;
      for (const name of Object.getOwnPropertyNames(controller.prototype)) {
        const handler = controller.prototype[name];
        if (typeof handler !== 'function' || Reflect.getMetadata(METHOD_METADATA, handler) === undefined) continue;
        const path = `/${[base, Reflect.getMetadata(PATH_METADATA, handler) as string].filter((p) => p && p !== '/').join('/')}`
          .replace(/\/+/g, '/')
          .replace(/:([A-Za-z0-9_]+)/g, '{$1}')
          // A trailing wildcard (the hash tiles' paths) is one parameter, `path`, to OpenAPI.
          .replace(/\/\*$/, '/{path}');
        routes.push({ method: RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as number].toLowerCase(), path, handler, controller: controller.name, name });
      }
    }
  }
  return routes;
}
