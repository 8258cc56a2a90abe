import type { NextFunction, Request, Response } from 'express';
import { surfaceOf } from '../common/surface';
import { Metrics } from './metrics.service';

/** Observes each request's duration under its matched route pattern (never the raw path: ids would explode the series). */
export function requestMetrics(metrics: Metrics) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const start = process.hrtime.bigint();
    // 'close' follows every response once, whether it finished or was cut off.
    res.once('close', () => {
      const route = (req.route as { path?: string } | undefined)?.path ?? 'unmatched';
      const labels = {
        surface: surfaceOf(req),
        method: req.method,
        route,
        status: String(res.statusCode),
      };
      metrics.requestDuration.observe(labels, Number(process.hrtime.bigint() - start) / 1e9);
    });
    next();
  };
}
