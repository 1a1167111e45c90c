import { Writable } from 'node:stream';
import {
  ArgumentMetadata,
  Body,
  CallHandler,
  CanActivate,
  Controller,
  ExecutionContext,
  Get,
  Header,
  HttpCode,
  Injectable,
  Module,
  NestInterceptor,
  Param,
  PipeTransform,
  Post,
  Query,
  Res,
  Scope,
  UseGuards,
  UseInterceptors,
  createParamDecorator,
} from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { IsString } from 'class-validator';
import type { FastifyReply } from 'fastify';
import { map } from 'rxjs';
import request from 'supertest';
import { conflict } from '@ledger/platform';
import { API_KEY_VERIFIER } from '../auth/api-key-verifier';
import { Public } from '../auth/auth.decorators';
import { createHttpApp } from '../configure-http-app';
import { createJsonLogger } from '../logging/json-logger';

/** True when the calling handler was reached from the direct route rather than from Nest's router. */
const servedDirectly = () => /\bdirectRoute\b/.test(new Error().stack ?? '');

class NameDto {
  @IsString()
  name!: string;
}

/** A parameter pipe, as an instance: upper-cases what the global pipe let through. */
class ShoutPipe implements PipeTransform {
  readonly seen: ArgumentMetadata[] = [];
  transform(value: string, metadata: ArgumentMetadata): string {
    this.seen.push(metadata);
    return value.toUpperCase();
  }
}
const shout = new ShoutPipe();

/** A pipe that settles later, as one that reads a store would. */
class SlowPipe implements PipeTransform {
  async transform(value: string): Promise<string> {
    await new Promise((resolve) => setImmediate(resolve));
    return `${value}!`;
  }
}

const Caller = createParamDecorator((data: string, context: ExecutionContext) => ({
  data,
  userAgent: context.switchToHttp().getRequest<{ headers: Record<string, string> }>().headers['user-agent'],
  controller: context.getClass().name,
  handler: context.getHandler().name,
}));

@Injectable()
class RefuseGuard implements CanActivate {
  canActivate(): boolean {
    return false;
  }
}

@Injectable()
class WrapInterceptor implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler) {
    return next.handle().pipe(map((value: unknown) => ({ wrapped: value })));
  }
}

@Controller('direct')
class DirectController {
  @Public()
  @Get('plain')
  plain() {
    return { direct: servedDirectly() };
  }

  @Public()
  @Post('created')
  created(@Body() body: NameDto) {
    return { name: body.name, isDto: body instanceof NameDto, direct: servedDirectly() };
  }

  @Public()
  @Post('ok')
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  ok() {
    return { direct: servedDirectly() };
  }

  @Public()
  @Post('chosen')
  async chosen(@Query('replayed', new SlowPipe()) replayed: string | undefined, @Res({ passthrough: true }) reply: FastifyReply) {
    await Promise.resolve();
    reply.status(replayed === 'yes!' ? 200 : 201);
    return { replayed: replayed === 'yes!' };
  }

  @Public()
  @Get('items/:itemId')
  item(@Param('itemId', shout) itemId: string, @Caller('who') caller: unknown) {
    return { itemId, caller, direct: servedDirectly() };
  }

  @Public()
  @Get('slow/:value')
  slow(@Param('value', new SlowPipe()) value: string) {
    return { value };
  }

  @Public()
  @Get('refused')
  refused() {
    throw conflict('thing_already_exists', 'A thing with this name exists.');
  }

  @Public()
  @Get('rejected')
  async rejected() {
    await Promise.resolve();
    throw new Error('a detail for the logs only');
  }

  @Public()
  @Get('nothing')
  @HttpCode(204)
  nothing(): void {}

  @Public()
  @Get('guarded')
  @UseGuards(RefuseGuard)
  guarded() {
    return { reached: true };
  }

  @Public()
  @Get('intercepted')
  @UseInterceptors(WrapInterceptor)
  intercepted() {
    return { direct: servedDirectly() };
  }

  @Public()
  @Get('handled')
  handled(@Res() reply: FastifyReply) {
    void reply.status(202).send({ direct: servedDirectly() });
  }
}

@Controller({ path: 'scoped', scope: Scope.REQUEST })
class RequestScopedController {
  @Public()
  @Get()
  get() {
    return { direct: servedDirectly() };
  }
}

@Module({ controllers: [DirectController, RequestScopedController], providers: [{ provide: API_KEY_VERIFIER, useValue: { verify: async () => null } }] })
class DirectModule {}

describe('routes served directly from Fastify (direct-routes.ts)', () => {
  let app: NestFastifyApplication;
  const logs: Array<Record<string, unknown>> = [];
  const http = () => request(app.getHttpServer());

  beforeAll(async () => {
    const destination = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) logs.push(JSON.parse(line));
        callback();
      },
    });
    app = await createHttpApp(DirectModule, createJsonLogger({ level: 'info', destination }));
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  });
  afterAll(() => app.close());

  it('answers a GET with 200 and the handler\'s value as JSON, without Nest\'s router', async () => {
    const response = await http().get('/direct/plain').expect(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.body).toEqual({ direct: true });
  });

  it('answers a POST with 201 and hands the handler the body the global pipe built and checked', async () => {
    const response = await http().post('/direct/created').send({ name: 'a' }).expect(201);
    expect(response.body).toEqual({ name: 'a', isDto: true, direct: true });
    const refused = await http().post('/direct/created').send({ name: 1 }).expect(400);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(refused.body).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ field: 'name', reason: 'must_be_string' }] });
  });

  it('applies @HttpCode() and @Header()', async () => {
    const response = await http().post('/direct/ok').expect(200);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.body).toEqual({ direct: true });
    await http().get('/direct/nothing').expect(204, '');
  });

  it('lets a handler set the status through @Res({ passthrough: true }), after a pipe and an await', async () => {
    await http().post('/direct/chosen?replayed=yes').expect(200, { replayed: true });
    await http().post('/direct/chosen').expect(201, { replayed: false });
  });

  it('runs the global pipe, then the parameter\'s own, with Nest\'s metadata; custom decorators get the execution context', async () => {
    shout.seen.length = 0;
    const response = await http().get('/direct/items/abc').set('user-agent', 'probe').expect(200);
    expect(response.body).toEqual({ itemId: 'ABC', caller: { data: 'who', userAgent: 'probe', controller: 'DirectController', handler: 'item' }, direct: true });
    expect(shout.seen).toEqual([{ type: 'param', metatype: String, data: 'itemId' }]);
  });

  it('waits for a pipe that returns a promise', async () => {
    await http().get('/direct/slow/v').expect(200, { value: 'v!' });
  });

  it('answers an empty path parameter 404, as Nest does', async () => {
    const response = await http().get('/direct/items/').expect(404);
    expect(response.body).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('renders what a handler throws or rejects with as problem+json through the exception filter', async () => {
    const thrown = await http().get('/direct/refused').expect(409);
    expect(thrown.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(thrown.body).toMatchObject({ code: 'thing_already_exists', detail: 'A thing with this name exists.' });
    const rejected = await http().get('/direct/rejected').expect(500);
    expect(rejected.body).toMatchObject({ code: 'INTERNAL_ERROR' });
    expect(rejected.text).not.toContain('a detail for the logs only');
    expect(logs.some((line) => String(line.msg).includes('a detail for the logs only'))).toBe(true);
  });

  it('leaves a route with its own guards, interceptors or a handled @Res() to Nest, which honours them', async () => {
    await http().get('/direct/guarded').expect(403);
    await http().get('/direct/intercepted').expect(200, { wrapped: { direct: false } });
    await http().get('/direct/handled').expect(202, { direct: false });
  });

  it('leaves a request-scoped controller, which only Nest can build per request, to Nest', async () => {
    await http().get('/scoped').expect(200, { direct: false });
  });
});
