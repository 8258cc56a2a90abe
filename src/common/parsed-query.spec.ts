import express from 'express';
import request from 'supertest';
import { parse } from 'node:querystring';
import { parseQueryOnce } from './parsed-query';

describe('parseQueryOnce', () => {
  it('parses the query string once however often a request reads it, and keeps what Express would give', async () => {
    let parses = 0;
    const app = express();
    app.set('query parser', (text: string) => (parses++, parse(text)));
    app.use(parseQueryOnce);
    app.get('/read', (req, res) => {
      const reads = [req.query, req.query, req.query];
      res.json({ same: reads.every((q) => q === reads[0]), query: req.query });
    });

    const answer = await request(app).get('/read?directory=%2Ftmp%2Fa&x=1&x=2').expect(200);
    expect(answer.body).toEqual({ same: true, query: { directory: '/tmp/a', x: ['1', '2'] } });
    expect(parses).toBe(1);
    expect((await request(app).get('/read').expect(200)).body).toEqual({ same: true, query: {} });
  });
});
