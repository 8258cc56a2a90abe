import { Controller, Get, Res } from '@nestjs/common';
import { ApiOkResponse, ApiProduces, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Response } from 'express';
import { DataSource } from 'typeorm';
import { Metrics } from './metrics.service';
import { ReadinessDto } from './readiness.dto';

/** How long readiness waits for the database before calling it unreachable. */
const DATABASE_TIMEOUT_MS = 2_000;

function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)),
  );
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** What an operator's tools ask: Prometheus metrics and readiness (`/global/health` stays the liveness check). */
@ApiTags('operations')
@Controller()
export class OperationsController {
  constructor(
    private readonly metrics: Metrics,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  @Get('metrics')
  @ApiProduces('text/plain')
  @ApiOkResponse({ description: 'Prometheus text exposition format', schema: { type: 'string' } })
  async scrape(@Res() res: Response): Promise<void> {
    const text = await this.metrics.registry.metrics();
    res.type(this.metrics.registry.contentType).send(text);
  }

  /** Ready when the database answers and no migration is pending; 503 otherwise, naming what is not. */
  @Get('global/ready')
  @ApiOkResponse({ type: ReadinessDto, description: 'Ready to serve' })
  @ApiServiceUnavailableResponse({ type: ReadinessDto, description: 'Not ready: the fields say why' })
  async ready(@Res() res: Response): Promise<void> {
    const readiness: ReadinessDto = { ready: false, database: 'ok', migrations: 'done' };
    try {
      await within(this.dataSource.query('SELECT 1'), DATABASE_TIMEOUT_MS);
      if (await within(this.dataSource.showMigrations(), DATABASE_TIMEOUT_MS))
        readiness.migrations = 'pending';
    } catch (error) {
      readiness.database = `unreachable: ${(error as Error).message}`;
      readiness.migrations = 'unknown';
    }
    readiness.ready = readiness.database === 'ok' && readiness.migrations === 'done';
    res.status(readiness.ready ? 200 : 503).json(readiness);
  }
}
