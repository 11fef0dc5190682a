import type { Principal } from '../kernel/auth/principal';
import { writeRequest, type HttpRequest } from './write-request';

const device: Principal = { id: 'device-1', role: 'table-device', tables: null };

function req(over: { method?: string; url?: string; body?: unknown; headers?: Record<string, string>; correlationId?: string } = {}): HttpRequest {
  const headers = over.headers ?? {};
  return {
    method: over.method ?? 'POST',
    originalUrl: over.url ?? '/shoes/S1/rounds/R1/cards',
    body: over.body ?? { position: 'P1', card: '9S' },
    correlationId: over.correlationId,
    header: (name: string) => headers[name.toLowerCase()],
  } as unknown as HttpRequest;
}

describe('writeRequest', () => {
  it('given an HTTP write, then the stream, caller, correlation, time at the table, expected version and idempotency key', () => {
    const w = writeRequest(req({ headers: { 'idempotency-key': 'k-1' }, correlationId: 'c-1' }), device, 'S1', { occurredAt: '2026-11-29T12:00:00.000Z', expectedVersion: 7 });
    expect(w).toMatchObject({ shoeId: 'S1', tableId: null, principal: device, correlationId: 'c-1', occurredAt: '2026-11-29T12:00:00.000Z', expectedVersion: 7, idempotencyKey: 'k-1' });
    expect(w.requestHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('defaults: no time (the ledger records it), no expected version, no key, correlation "none"; the table only when given', () => {
    expect(writeRequest(req(), device, 'S1', {})).toMatchObject({ occurredAt: null, expectedVersion: undefined, idempotencyKey: null, correlationId: 'none', tableId: null });
    expect(writeRequest(req({ url: '/tables/T1/shoes' }), device, 'S1', {}, 'T1').tableId).toBe('T1');
  });

  it('hashes method, path, caller and raw body: the same request hashes the same, any change differs; the query string is left out', () => {
    const hash = (r: HttpRequest, p: Principal = device) => writeRequest(r, p, 'S1', {}).requestHash;
    const base = hash(req());
    expect(hash(req())).toBe(base);
    expect(hash(req({ url: '/shoes/S1/rounds/R1/cards?x=1' }))).toBe(base);
    expect(hash(req({ body: { position: 'P1', card: '9H' } }))).not.toBe(base);
    expect(hash(req({ url: '/shoes/S1/rounds/R2/cards' }))).not.toBe(base);
    expect(hash(req({ method: 'PUT' }))).not.toBe(base);
    expect(hash(req(), { id: 'device-2', role: 'table-device', tables: null })).not.toBe(base);
  });
});
