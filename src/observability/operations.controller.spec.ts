import { getDataSourceToken } from '@nestjs/typeorm';
import { controllerSetup, ControllerContext, TEST_REQUEST_ID } from '../../test/support/controller-setup';
import { Metrics } from './metrics.service';
import { OperationsController } from './operations.controller';

/** The database as readiness sees it: whether it answers, and whether migrations are pending. */
const database = { answers: true, pending: false };
const calls: string[] = [];
const dataSource = {
  query: (sql: string) => (calls.push(sql), database.answers ? Promise.resolve([{ 1: 1 }]) : Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432'))),
  showMigrations: () => (calls.push('showMigrations'), Promise.resolve(database.pending)),
};
const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
const exposition = { text: '# HELP keel_requests_total Requests\nkeel_requests_total 3\n', fails: false };
const metrics = {
  registry: {
    contentType: CONTENT_TYPE,
    metrics: () => (exposition.fails ? Promise.reject(new Error('collector crashed')) : Promise.resolve(exposition.text)),
  },
};

describe('OperationsController at the boundary (GET /metrics, GET /global/ready)', () => {
  let ctx: ControllerContext;

  beforeAll(async () => {
    ctx = await controllerSetup(
      [OperationsController],
      [
        { provide: Metrics, useValue: metrics },
        { provide: getDataSourceToken(), useValue: dataSource },
      ],
    );
  });
  afterAll(() => ctx.close());
  beforeEach(() => {
    calls.length = 0;
    Object.assign(database, { answers: true, pending: false });
    exposition.fails = false;
  });

  it('GET /metrics: 200 with the registry exposition in its content type', async () => {
    const res = await ctx.http().get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(CONTENT_TYPE);
    expect(res.text).toBe(exposition.text);
  });

  it('GET /metrics when the registry fails: 500 UnknownError with the request id, nothing of the error', async () => {
    exposition.fails = true;
    const res = await ctx.http().get('/metrics');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ name: 'UnknownError', data: { message: 'Unexpected server error', ref: TEST_REQUEST_ID } });
  });

  it('GET /global/ready: 200 ready when the database answers and no migration is pending', async () => {
    const res = await ctx.http().get('/global/ready');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ready: true, database: 'ok', migrations: 'done' });
    expect(calls).toEqual(['SELECT 1', 'showMigrations']);
  });

  it('GET /global/ready with a migration pending: 503 naming migrations', async () => {
    database.pending = true;
    const res = await ctx.http().get('/global/ready');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ ready: false, database: 'ok', migrations: 'pending' });
  });

  it('GET /global/ready with the database unreachable: 503 naming the database, migrations unknown and not asked', async () => {
    database.answers = false;
    const res = await ctx.http().get('/global/ready');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ ready: false, database: 'unreachable: connect ECONNREFUSED 127.0.0.1:5432', migrations: 'unknown' });
    expect(calls).toEqual(['SELECT 1']);
  });
});
