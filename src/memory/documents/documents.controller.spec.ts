import { BadRequestError, issue, NotFoundError, ValidationError } from '../../common/errors';
import { controllerSetup, ControllerContext, TEST_REQUEST_ID } from '../../../test/support/controller-setup';
import { expectMemoryError } from '../../../test/support/error-bodies';
import { DocumentIngestService } from './document-ingest.service';
import { DocumentQueryService } from './document-query.service';
import { ConversationsController, DocumentsController } from './documents.controller';
import type { UploadForm } from './upload-form';

const ORG = 'org_spec';

/** What the services were asked: (method, org, …arguments). */
const calls: unknown[][] = [];
const ingest = {
  add: (org: string, body: unknown) => {
    calls.push(['add', org, body]);
    const content = (body as { content?: unknown }).content;
    if (typeof content !== 'string') return Promise.reject(new ValidationError([issue(['content'], 'Required', 'invalid_type')], body));
    if (content === 'boom') return Promise.reject(new Error('constraint failed at /var/lib/keel'));
    return Promise.resolve({ id: 'doc_1', status: 'queued' });
  },
  batch: (org: string, body: unknown) => (calls.push(['batch', org, body]), Promise.resolve({ results: [], success: 0, failed: 0 })),
  update: (org: string, id: string, body: unknown) => (calls.push(['update', org, id, body]), Promise.resolve({ id, status: 'done' })),
  remove: (org: string, id: string) => {
    calls.push(['remove', org, id]);
    return id === 'missing' ? Promise.reject(new NotFoundError('Document not found')) : Promise.resolve();
  },
  removeBulk: (org: string, body: unknown) => (calls.push(['removeBulk', org, body]), Promise.reject(new BadRequestError('Give ids or containerTags'))),
  conversation: (org: string, body: unknown) => (calls.push(['conversation', org, body]), Promise.resolve({ id: 'doc_c', status: 'queued' })),
  addFile: (org: string, { file, fields }: UploadForm) => {
    calls.push(['addFile', org, { name: file.originalname, text: file.buffer.toString() }, fields]);
    return Promise.resolve({ id: 'doc_f', status: 'queued' });
  },
};
const reads = {
  get: (org: string, id: string) => {
    calls.push(['get', org, id]);
    return id === 'missing' ? Promise.reject(new NotFoundError('Document not found')) : Promise.resolve({ id, status: 'done' });
  },
  list: (org: string, body: unknown) => (calls.push(['list', org, body]), Promise.resolve({ memories: [], pagination: { currentPage: 1, limit: 10, totalItems: 0, totalPages: 0 } })),
  processing: (org: string) => (calls.push(['processing', org]), Promise.resolve({ documents: [], totalCount: 0 })),
  listChunks: (org: string, id: string) => (calls.push(['listChunks', org, id]), Promise.resolve({ chunks: [] })),
};
const services = [
  { provide: DocumentIngestService, useValue: ingest },
  { provide: DocumentQueryService, useValue: reads },
];

describe('DocumentsController at the boundary (guards, multipart, memory error dialect)', () => {
  let ctx: ControllerContext;

  beforeAll(async () => {
    ctx = await controllerSetup([DocumentsController, ConversationsController], services, { orgId: ORG });
  });
  afterAll(() => ctx.close());
  beforeEach(() => (calls.length = 0));

  it('POST /v3/documents: 200 (not 201) with the service answer; the organization and body reach the service', async () => {
    const res = await ctx.http().post('/v3/documents').send({ content: 'hello', containerTag: 'a' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: 'doc_1', status: 'queued' });
    expect(calls).toEqual([['add', ORG, { content: 'hello', containerTag: 'a' }]]);
  });

  it('a validation error: 400 {error: "Invalid request parameters", details: "path: message"}', async () => {
    const res = await ctx.http().post('/v3/documents').send({ content: 'x', customId: 5 });
    expect(res.status).toBe(400);
    expectMemoryError(res.body, { error: 'Invalid request parameters', details: 'customId: must be a string' });
    expect(calls).toEqual([]);
  });

  it('the body is checked at the boundary against its DTO: each bad field named, in declaration order, before the service', async () => {
    const res = await ctx.http().post('/v3/documents').send({ title: 5, content: '', customId: '', containerTag: 'a b', taskType: 'x' });
    expect(res.status).toBe(400);
    expectMemoryError(res.body, {
      details:
        'content: must be at least 1 character(s) long; containerTag: must contain only letters, digits, underscores, hyphens, colons and dots; ' +
        'customId: must be at least 1 character(s) long; taskType: must be one of memory, superrag; title: must be a string',
    });
    const notObject = await ctx.http().post('/v3/documents').send([1]);
    expect(notObject.status).toBe(400);
    expectMemoryError(notObject.body, { details: '(body): the request body must be a JSON object' });
    const tooLarge = await ctx.http().post('/v3/documents').send({ content: 'x'.repeat(1024 * 1024 + 1), customId: 5 });
    expect(tooLarge.status).toBe(413);
    expectMemoryError(tooLarge.body, { error: 'content exceeds 1 MB', details: null });
    expect(calls).toEqual([]);
  });

  it('the service receives the typed DTO: numbers and booleans sent as text converted, null as absent, undeclared fields dropped', async () => {
    const res = await ctx.http().post('/v3/documents/list').send({ limit: '5', includeContent: 'true', sort: null, extra: 1 });
    expect(res.status).toBe(200);
    const body = calls[0][2] as Record<string, unknown>;
    expect(body.constructor.name).toBe('ListDocumentsBody');
    expect({ ...body }).toEqual({ limit: 5, includeContent: true, sort: undefined });
  });

  it('a NUL in a body string or key: 400 naming it, before the service', async () => {
    const res = await ctx.http().post('/v3/documents').send({ content: 'a\u0000b' });
    expect(res.status).toBe(400);
    expectMemoryError(res.body, { error: 'Invalid request parameters', details: /^content: must not contain NUL/ });
    const key = await ctx.http().post('/v3/documents').send({ content: 'x', metadata: { 'k\u0000': 1 } });
    expect(key.status).toBe(400);
    expectMemoryError(key.body, { details: /^metadata\.k.: key must not contain NUL/ });
    expect(calls).toEqual([]);
  });

  it('POST /v3/documents/batch: each item is checked at the boundary and a bad one reaches the handler with its issues (it fails alone); the rest of the body fails the request', async () => {
    const ok = await ctx.http().post('/v3/documents/batch').send({ documents: [{ content: 'a\u0000' }, 'plain text', 7, { content: 'b', customId: 5 }] });
    expect(ok.status).toBe(200);
    const [[, , body]] = calls as [[string, string, { documents: unknown[] }]];
    expect(body.documents).toEqual([
      { issues: [expect.objectContaining({ path: ['documents', 0, 'content'] })] },
      { document: { content: 'plain text' } },
      { issues: [expect.objectContaining({ path: ['documents', 2], message: 'must be an object or a string' })] },
      { issues: [expect.objectContaining({ path: ['documents', 3, 'customId'], message: 'must be a string' })] },
    ]);
    const bad = await ctx.http().post('/v3/documents/batch').send({ documents: [], containerTag: 'a\u0000' });
    expect(bad.status).toBe(400);
    expectMemoryError(bad.body, { details: /^containerTag: / });
    expect(calls.map((c) => c[0])).toEqual(['batch']);
  });

  it('malformed and too-deep JSON: 400 in the memory dialect', async () => {
    const malformed = await ctx.http().post('/v3/documents').set('content-type', 'application/json').send('{"content":');
    expect(malformed.status).toBe(400);
    // The parser's own words after the path (they vary with the Node version).
    expectMemoryError(malformed.body, { error: 'Invalid request parameters', details: /^\(body\): \w/ });
    const deep = await ctx.http().post('/v3/documents').set('content-type', 'application/json').send(`{"content":"x","metadata":{"a":${'['.repeat(100)}${']'.repeat(100)}}}`);
    expect(deep.status).toBe(400);
    expectMemoryError(deep.body, { details: /deeper than 64/ });
    expect(calls).toEqual([]);
  });

  it('bodies of the wrong type: 415 (a form on a JSON route, JSON on the file route)', async () => {
    const form = await ctx.http().post('/v3/documents').field('content', 'x');
    expect(form.status).toBe(415);
    expectMemoryError(form.body, { error: /must be application\/json/, details: null });
    const json = await ctx.http().post('/v3/documents/file').send({ content: 'x' });
    expect(json.status).toBe(415);
    expectMemoryError(json.body, { error: /must be multipart\/form-data/, details: null });
    expect(calls).toEqual([]);
  });

  it('POST /v3/documents/file: the file and the typed fields reach the service (JSON text fields decoded, one containerTags a list)', async () => {
    const res = await ctx
      .http()
      .post('/v3/documents/file')
      .attach('file', Buffer.from('# notes'), 'notes.md')
      .field('containerTag', 'a')
      .field('containerTags', 'b')
      .field('metadata', '{"team": "docs", "year": 2026}');
    expect(res.status).toBe(200);
    expect(calls).toEqual([['addFile', ORG, { name: 'notes.md', text: '# notes' }, { containerTag: 'a', containerTags: ['b'], metadata: { team: 'docs', year: 2026 } }]]);
  });

  it('POST /v3/documents/file: the form is checked at the boundary (no file, bad fields, JSON too deep), before the service', async () => {
    const noFile = await ctx.http().post('/v3/documents/file').field('containerTag', 'a');
    expect(noFile.status).toBe(400);
    expectMemoryError(noFile.body, { error: 'Invalid request parameters', details: 'file: is required' });
    const bad = await ctx
      .http()
      .post('/v3/documents/file')
      .attach('file', Buffer.from('x'), 'x.txt')
      .field('metadata', `${'{"a":'.repeat(70)}1${'}'.repeat(70)}`)
      .field('fileType', 'spreadsheet');
    expect(bad.status).toBe(400);
    expectMemoryError(bad.body, { details: /^metadata: JSON nests deeper than 64 levels; .*fileType: must be one of / });
    const image = await ctx.http().post('/v3/documents/file').attach('file', Buffer.from('x'), 'x.png').field('fileType', 'image');
    expect(image.status).toBe(400);
    expectMemoryError(image.body, { details: 'mimeType: is required when fileType is image' });
    expect(calls).toEqual([]);
  });

  it('GET, DELETE /v3/documents/:id: 200 and 204; an unknown id is 404 {error}', async () => {
    expect((await ctx.http().get('/v3/documents/doc_1')).status).toBe(200);
    const gone = await ctx.http().delete('/v3/documents/doc_1');
    expect(gone.status).toBe(204);
    expect(gone.text).toBe('');
    const missing = await ctx.http().get('/v3/documents/missing');
    expect(missing.status).toBe(404);
    expectMemoryError(missing.body, { error: 'Document not found', details: null });
    const missingDelete = await ctx.http().delete('/v3/documents/missing');
    expect(missingDelete.status).toBe(404);
    expectMemoryError(missingDelete.body, { error: 'Document not found', details: null });
  });

  it('fixed paths are not taken for ids: processing, list, bulk, chunks', async () => {
    expect((await ctx.http().get('/v3/documents/processing')).status).toBe(200);
    expect((await ctx.http().post('/v3/documents/list')).status).toBe(200);
    expect((await ctx.http().get('/v3/documents/doc_1/chunks')).status).toBe(200);
    const bulk = await ctx.http().delete('/v3/documents/bulk').send({ ids: ['doc_1'] });
    expect(bulk.status).toBe(400);
    expectMemoryError(bulk.body, { error: 'Give ids or containerTags', details: null });
    const empty = await ctx.http().delete('/v3/documents/bulk').send({});
    expect(empty.status).toBe(400);
    expectMemoryError(empty.body, { details: 'ids: ids or containerTags is required' });
    expect(calls.map((c) => c[0])).toEqual(['processing', 'list', 'listChunks', 'removeBulk']);
  });

  it('POST /v4/conversations: 200 with the service answer', async () => {
    const messages = [{ role: 'user', content: 'hi' }];
    const res = await ctx.http().post('/v4/conversations').send({ conversationId: 'c1', messages });
    expect(res.status).toBe(200);
    expect(calls).toEqual([['conversation', ORG, { conversationId: 'c1', messages }]]);
  });

  it('an unexpected error: 500 {error, details: "ref <request id>"}, nothing of the error itself', async () => {
    const res = await ctx.http().post('/v3/documents').send({ content: 'boom' });
    expect(res.status).toBe(500);
    expectMemoryError(res.body, { error: 'Internal server error', details: `ref ${TEST_REQUEST_ID}` });
  });

  it('an unknown memory route: JSON 404', async () => {
    const res = await ctx.http().get('/v3/documents/doc_1/nothing');
    expect(res.status).toBe(404);
    expectMemoryError(res.body, { error: /Route not found/, details: null });
  });
});

describe('DocumentsController reached without an organization', () => {
  it('refuses with 401 {error} and never calls a service', async () => {
    const ctx = await controllerSetup([DocumentsController], services);
    try {
      calls.length = 0;
      const res = await ctx.http().post('/v3/documents').send({ content: 'x' });
      expect(res.status).toBe(401);
      expectMemoryError(res.body, { error: 'No organization was resolved for this request', details: null });
      expect(calls).toEqual([]);
    } finally {
      await ctx.close();
    }
  });
});
