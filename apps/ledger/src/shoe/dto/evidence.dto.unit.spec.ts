import 'reflect-metadata';
import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import { isEvidence } from '@ledger/events';
import { applyHttpWiring } from '../../common/http-wiring';
import { LedgerExceptionFilter } from '../../common/ledger-exception.filter';
import { REJECTION_LOG, type RejectionLog } from '../../kernel/rejection-log';
import { DealCardDto } from '../round/deal-card/deal-card.dto';
import { DecisionDto } from './decision.dto';
import { evidenceOf, FactWriteDto } from './evidence.dto';

/**
 * Evidence on table facts and decisions (docs/reports.md §7): the DTO rules through the API's real
 * validation pipe and exception filter — well-formed evidence passes and is kept as given, every
 * malformed one (bad camera id, timecode, segment reference, an empty object, a non-object, an
 * unknown key) answers 400 `EVIDENCE.INVALID`.
 */
@Controller('probe')
class ProbeController {
  @Post('fact')
  @HttpCode(200)
  fact(@Body() b: FactWriteDto): unknown {
    return { evidence: evidenceOf(b.evidence) };
  }

  @Post('deal')
  @HttpCode(200)
  deal(@Body() b: DealCardDto): unknown {
    return { evidence: evidenceOf(b.evidence) };
  }

  @Post('decision')
  @HttpCode(200)
  decision(@Body() b: DecisionDto): unknown {
    return { evidence: evidenceOf(b.evidence) };
  }
}

describe('evidence DTO (docs/reports.md §7)', () => {
  let app: NestExpressApplication;
  const log: RejectionLog = { record: async () => undefined };

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

  const post = (path: string, body: unknown) =>
    request(app.getHttpServer())
      .post(`/probe/${path}`)
      .send(body as object);

  it.each([
    [{ cameraId: 'CAM-07' }],
    [{ timecode: '21:04:10:12' }],
    [{ timecode: '23:59:59;59' }],
    [{ segmentRef: 'vms://site-1/cam-07/2026-11-29T21:04:00Z' }],
    [{ cameraId: 'pit/3:cam.2', timecode: '00:00:00:00', segmentRef: 'clip-0042' }],
  ])('accepts %j and keeps exactly what was given', async (evidence) => {
    const res = await post('fact', { evidence });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ evidence });
    expect(isEvidence(evidence)).toBe(true);
  });

  it('no evidence (absent or null) is no evidence', async () => {
    expect((await post('fact', {})).body).toEqual({ evidence: null });
    expect((await post('fact', { evidence: null })).body).toEqual({ evidence: null });
    expect((await post('deal', { position: 'P1', card: '9S' })).body).toEqual({ evidence: null });
  });

  it.each([
    ['an empty object', {}],
    ['a string', 'CAM-07'],
    ['an array', [{ cameraId: 'CAM-07' }]],
    ['an unknown key', { cameraId: 'CAM-07', operator: 'bob' }],
    ['a camera id with a space', { cameraId: 'CAM 07' }],
    ['a camera id over 64 characters', { cameraId: 'C'.repeat(65) }],
    ['a camera id that is a number', { cameraId: 7 }],
    ['a timecode with hour 24', { timecode: '24:00:00:00' }],
    ['a timecode with minute 60', { timecode: '12:60:00:00' }],
    ['a timecode with frame 60', { timecode: '12:00:00:60' }],
    ['a timecode without frames', { timecode: '12:00:00' }],
    ['an ISO time as timecode', { timecode: '2026-11-29T21:04:10.123Z' }],
    ['a segment reference with a space', { segmentRef: 'clip 42' }],
    ['a segment reference over 256 characters', { segmentRef: 's'.repeat(257) }],
    ['a segment reference with a control character', { segmentRef: 'clip\u000742' }],
  ])('refuses %s with 400 EVIDENCE.INVALID', async (_what, evidence) => {
    for (const path of ['fact', 'decision']) {
      const body = path === 'decision' ? { reason: 'card exposed on video', evidence } : { evidence };
      const res = await post(path, body);
      expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status: 400, code: 'EVIDENCE.INVALID' });
    }
    if (evidence !== null && typeof evidence === 'object' && !Array.isArray(evidence)) expect(isEvidence(evidence)).toBe(false);
  });

  it('a malformed card next to good evidence stays CARD.MALFORMED; another bad field stays VALIDATION.FAILED', async () => {
    expect((await post('deal', { position: 'P1', card: '1S', evidence: { cameraId: 'CAM-1' } })).body.error.code).toBe('CARD.MALFORMED');
    expect((await post('deal', { position: 'P9', card: '9S', evidence: { cameraId: 'CAM-1' } })).body.error.code).toBe('VALIDATION.FAILED');
  });

  it('the code is not read from a message: an unknown key named CARD.MALFORMED or EVIDENCE.INVALID is VALIDATION.FAILED', async () => {
    for (const key of ['CARD.MALFORMED', 'EVIDENCE.INVALID']) {
      const res = await post('deal', { position: 'P1', card: '9S', [key]: 1 });
      expect({ status: res.status, code: res.body.error.code, problems: res.body.error.details.problems }).toEqual({
        status: 400,
        code: 'VALIDATION.FAILED',
        problems: [`property ${key} should not exist`],
      });
    }
  });
});
