import 'reflect-metadata';
import { Body, Controller, ForbiddenException, HttpCode, MethodNotAllowedException, Param, Post, UnauthorizedException } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { IsString } from 'class-validator';
import request from 'supertest';
import { ERROR_CODES, ERROR_TABLE, errorSpec, type ErrorCode, type ErrorSource } from '@ledger/errors';
import { ConcurrencyError, DuplicateEventError, DuplicateReferenceError, EventStoreError, IdempotencyKeyReuseError, InvalidAppendError, StreamTableMismatchError, type EventStoreErrorCode } from '@ledger/event-store';
import { ProjectionError, type ProjectionErrorCode } from '@ledger/projections';
import { RulesError, type RulesErrorCode } from '@ledger/rules';
import { DomainError, type DomainErrorCode } from '@ledger/shoe';
import { IsCard } from './validators';
import { ApiError } from '../kernel/api-error';
import { applyHttpWiring } from './http-wiring';
import { LedgerExceptionFilter } from './ledger-exception.filter';
import { withErrorTable } from './openapi-errors';
import { REJECTION_LOG, type RejectionLog, type RejectionRecord } from '../kernel/rejection-log';

/**
 * Walks EVERY code of the error table through a real Nest application (docs/architecture.md §4):
 * the real `LedgerExceptionFilter` and HTTP wiring, a test controller that throws each code as
 * each error type that raises it, and asserts the HTTP status and the body's `code` equal the
 * table (and that a refusal is recorded with that status).
 */

/** How each source of the table raises a code. */
type Thrower = 'api' | 'domain' | 'rules' | 'store' | 'projection' | 'coded';

const THROWERS_OF: Record<ErrorSource, Thrower[]> = {
  api: ['api'],
  shoe: ['domain'],
  rules: ['rules', 'domain'],
  'event-store': ['store'],
  events: ['coded'],
  projections: ['projection'],
  cli: ['coded'],
  config: ['coded'],
  signer: ['coded'],
};

function raise(thrower: Thrower, code: ErrorCode): never {
  const message = `test refusal ${code}`;
  switch (thrower) {
    case 'api':
      throw new ApiError(code, message, { probe: true });
    case 'domain':
      throw new DomainError(code as DomainErrorCode, message, { probe: true });
    case 'rules':
      throw new RulesError(code as RulesErrorCode, message, { probe: true });
    case 'store':
      throw new EventStoreError(code as EventStoreErrorCode, message, { probe: true });
    case 'projection':
      throw new ProjectionError(code as ProjectionErrorCode, message, { probe: true });
    case 'coded':
      throw Object.assign(new Error(message), { code, details: { probe: true } });
  }
}

class CardBody {
  @IsCard()
  card!: string;
}

class NameBody {
  @IsString()
  name!: string;
}

const STORE_ERRORS: Record<string, () => Error> = {
  ConcurrencyError: () => new ConcurrencyError('shoe-1', 3, 4),
  StreamTableMismatchError: () => new StreamTableMismatchError('shoe-1', 'T-1', 'T-2'),
  DuplicateEventError: () => new DuplicateEventError('shoe-1', ['e1'], 'PARTIAL'),
  IdempotencyKeyReuseError: () => new IdempotencyKeyReuseError('k-1'),
  InvalidAppendError: () => new InvalidAppendError('events must not be empty', { field: 'events' }),
  'DuplicateReferenceError.ROUND': () => new DuplicateReferenceError('ROUND', ['r1'], 'shoe-1'),
  'DuplicateReferenceError.BET': () => new DuplicateReferenceError('BET', ['b1'], 'shoe-1'),
};

const HTTP_EXCEPTIONS: Record<string, () => Error> = {
  unauthorized: () => new UnauthorizedException(),
  forbidden: () => new ForbiddenException(),
  'method-not-allowed': () => new MethodNotAllowedException(),
  plain: () => new Error('a bug'),
  'unknown-code': () => Object.assign(new Error('a code nobody put in the table'), { code: 'NOT.IN_TABLE' }),
};

@Controller('probe')
class ProbeController {
  @Post('throw/:thrower/:code')
  throwCode(@Param('thrower') thrower: Thrower, @Param('code') code: ErrorCode): never {
    raise(thrower, code);
  }

  @Post('store/:name')
  throwStoreError(@Param('name') name: string): never {
    throw STORE_ERRORS[name]();
  }

  @Post('http/:name')
  throwHttp(@Param('name') name: string): never {
    throw HTTP_EXCEPTIONS[name]();
  }

  @Post('card')
  @HttpCode(200)
  card(@Body() body: CardBody): CardBody {
    return body;
  }

  @Post('name')
  @HttpCode(200)
  name(@Body() body: NameBody): NameBody {
    return body;
  }
}

/** Every (code, thrower) pair the table implies: each code as every error type that raises it. */
const CASES: Array<[ErrorCode, Thrower]> = ERROR_CODES.flatMap((code) => [...new Set(ERROR_TABLE[code].raisedBy.flatMap((source) => THROWERS_OF[source]))].map((t): [ErrorCode, Thrower] => [code, t]));

describe('every code of the error table answers its status through the real exception filter', () => {
  let app: NestExpressApplication;
  const recorded: RejectionRecord[] = [];
  const log: RejectionLog = { record: async (r) => void recorded.push(r) };

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      controllers: [ProbeController],
      providers: [
        { provide: APP_FILTER, useClass: LedgerExceptionFilter },
        { provide: REJECTION_LOG, useValue: log },
      ],
    }).compile();
    app = moduleRef.createNestApplication<NestExpressApplication>({ logger: false });
    applyHttpWiring(app);
    await app.init();
  });
  afterAll(async () => {
    await app?.close();
  });
  beforeEach(() => {
    recorded.length = 0;
  });

  it('covers every code of the table', () => {
    expect([...new Set(CASES.map(([c]) => c))]).toEqual([...ERROR_CODES]);
  });

  it.each(CASES)('%s thrown as %s error answers the table status and code', async (code, thrower) => {
    const res = await request(app.getHttpServer()).post(`/probe/throw/${thrower}/${code}`).send({});
    const { status } = errorSpec(code);
    expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
    expect(res.body.error.details).toEqual({ probe: true });
    if (status < 500) {
      expect(recorded).toEqual([expect.objectContaining({ code, httpStatus: status, route: `POST /probe/throw/${thrower}/${code}` })]);
    } else {
      expect(recorded).toEqual([]);
    }
  });

  it.each(Object.keys(STORE_ERRORS).map((n) => [n]))('the event store %s answers the status of its code', async (name) => {
    const e = STORE_ERRORS[name]() as EventStoreError;
    expect(e.status).toBe(errorSpec(e.code).status);
    expect(e.kind).toBe(errorSpec(e.code).kind);
    const res = await request(app.getHttpServer())
      .post(`/probe/store/${encodeURIComponent(name)}`)
      .send({});
    expect({ status: res.status, code: res.body.error.code }).toEqual({ status: errorSpec(e.code).status, code: e.code });
  });

  it('an ApiError, a DomainError and an EventStoreError carry the status and kind of the table (a throw site names no status)', () => {
    expect(new ApiError('SHOE.NOT_FOUND', 'no shoe', { shoeId: 'S' })).toMatchObject({ status: 404, kind: 'not-found', details: { shoeId: 'S' } });
    expect(new ApiError('VALIDATION.FAILED', 'bad')).toMatchObject({ status: 400, kind: 'validation', details: {} });
    expect(ApiError.of('BET.NOT_FOUND', { betId: 'b-9' })).toMatchObject({ status: 404, message: 'no bet b-9 (or not projected yet)' });
    expect(new DomainError('SHOE.CLOSED', 'closed')).toMatchObject({ status: 422, kind: 'wrong-state' });
    expect(DomainError.of('SHOE.CLOSED', { shoeId: 'S-1' }).message).toBe('shoe S-1 is closed: only management decisions remain possible');
    expect(new ConcurrencyError('s', 1, 2)).toMatchObject({ status: 409, kind: 'conflict' });
  });

  describe('refusals of the framework and the body parser get the code of their status, and the status of that code', () => {
    const expectAnswer = (res: request.Response, code: ErrorCode) => expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status: errorSpec(code).status, code });

    it('a body that is not JSON: REQUEST.MALFORMED', async () => {
      expectAnswer(await request(app.getHttpServer()).post('/probe/name').set('content-type', 'application/json').send('{"name":'), 'REQUEST.MALFORMED');
    });
    it('a body over the limit: REQUEST.TOO_LARGE', async () => {
      expectAnswer(
        await request(app.getHttpServer())
          .post('/probe/name')
          .send({ name: 'x'.repeat(5 * 1024 * 1024 + 1) }),
        'REQUEST.TOO_LARGE',
      );
    });
    it('an unsupported charset: REQUEST.UNSUPPORTED_MEDIA_TYPE', async () => {
      expectAnswer(await request(app.getHttpServer()).post('/probe/name').set('content-type', 'application/json; charset=koi8-r').send('{"name":"a"}'), 'REQUEST.UNSUPPORTED_MEDIA_TYPE');
    });
    it('a DTO refusal: VALIDATION.FAILED; a malformed card: CARD.MALFORMED; an accepted body passes', async () => {
      expectAnswer(await request(app.getHttpServer()).post('/probe/name').send({ name: 3 }), 'VALIDATION.FAILED');
      expectAnswer(await request(app.getHttpServer()).post('/probe/name').send({ name: 'a', extra: 1 }), 'VALIDATION.FAILED');
      expectAnswer(await request(app.getHttpServer()).post('/probe/card').send({ card: '1S' }), 'CARD.MALFORMED');
      expect((await request(app.getHttpServer()).post('/probe/card').send({ card: '9S' })).status).toBe(200);
    });
    it('a path parameter that is no id: VALIDATION.FAILED', async () => {
      expectAnswer(await request(app.getHttpServer()).post('/probe/store/%00'), 'VALIDATION.FAILED');
    });
    it('an unknown route: ROUTE.NOT_FOUND', async () => {
      expectAnswer(await request(app.getHttpServer()).post('/nowhere').send({}), 'ROUTE.NOT_FOUND');
    });
    it('Nest 401 / 403 / other 4xx exceptions: AUTH.UNAUTHENTICATED, AUTH.FORBIDDEN, REQUEST.REFUSED', async () => {
      expectAnswer(await request(app.getHttpServer()).post('/probe/http/unauthorized'), 'AUTH.UNAUTHENTICATED');
      expectAnswer(await request(app.getHttpServer()).post('/probe/http/forbidden'), 'AUTH.FORBIDDEN');
      expectAnswer(await request(app.getHttpServer()).post('/probe/http/method-not-allowed'), 'REQUEST.REFUSED');
    });
    it('an error without a code, or with a code missing from the table: INTERNAL', async () => {
      const plain = await request(app.getHttpServer()).post('/probe/http/plain');
      expectAnswer(plain, 'INTERNAL');
      expect(plain.body.error.message).toBe('internal error');
      expectAnswer(await request(app.getHttpServer()).post('/probe/http/unknown-code'), 'INTERNAL');
    });
  });

  it('the OpenAPI document lists every code: ErrorResponse with the code enum, x-error-codes, each status an operation can answer, an example per code', () => {
    const doc = withErrorTable(SwaggerModule.createDocument(app, new DocumentBuilder().setTitle('probe').setDescription('the probe').build()));
    const schema = doc.components!.schemas!.ErrorResponse as { properties: { error: { properties: { code: { enum: string[] } } } } };
    expect(schema.properties.error.properties.code.enum).toEqual([...ERROR_CODES]);
    const listed = (doc as unknown as { 'x-error-codes': Array<{ code: string; status: number; kind: string }> })['x-error-codes'];
    expect(listed.map((e) => [e.code, e.status, e.kind])).toEqual(ERROR_CODES.map((c) => [c, ERROR_TABLE[c].status, ERROR_TABLE[c].kind]));
    expect(doc.info.description).toContain('the probe\n\n## Errors');
    expect(doc.info.description).toContain('| `ROUND.BETTING_CLOSED` | 422 | wrong-state |');
    const ops = Object.values(doc.paths).flatMap((item) => Object.values(item).filter((op): op is { responses: Record<string, { content?: unknown }> } => !!op && typeof op === 'object' && 'responses' in op));
    expect(ops.length).toBeGreaterThan(0);
    for (const op of ops) {
      expect(op.responses.default).toBeUndefined();
      for (const status of [400, 500, 503]) expect(op.responses[String(status)]).toEqual({ $ref: `#/components/responses/Error${status}` });
    }
    // the probe routes are POST without a token: the write statuses too, 404 where the path has a parameter
    for (const [path, item] of Object.entries(doc.paths)) {
      const statuses = Object.keys((item.post as { responses: Record<string, unknown> }).responses)
        .filter((k) => !k.startsWith('2'))
        .sort();
      expect([path, statuses]).toEqual([path, ['400', ...(path.includes('{') ? ['404'] : []), '409', '413', '415', '422', '500', '503']]);
    }
    // each shared response: the one error body, an example of each code of its status answered over HTTP
    const responses = doc.components!.responses as unknown as Record<string, { content: { 'application/json': { schema: unknown; examples: Record<string, { value: { error: { code: string } } }> } } }>;
    const httpCodes = ERROR_CODES.filter((c) => !ERROR_TABLE[c].raisedBy.every((r) => r === 'projections' || r === 'cli' || r === 'config' || r === 'signer'));
    expect(
      Object.values(responses)
        .flatMap((r) => Object.keys(r.content['application/json'].examples))
        .sort(),
    ).toEqual([...httpCodes].sort());
    for (const [name, r] of Object.entries(responses)) {
      expect(r.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorResponse' });
      for (const [code, ex] of Object.entries(r.content['application/json'].examples)) {
        expect([name, ex.value.error.code]).toEqual([`Error${ERROR_TABLE[code as keyof typeof ERROR_TABLE].status}`, code]);
      }
    }
  });
});
