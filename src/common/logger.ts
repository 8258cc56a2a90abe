import { LoggerService } from '@nestjs/common';
import pino, { Logger as Pino } from 'pino';

/**
 * Nest's start-up narration: a line per module and per route (about 230 lines at every start, a
 * twentieth of the time to healthy spent writing them). Debug level, so `KEEL_LOG_LEVEL=debug` still shows it.
 */
const STARTUP_NARRATORS = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer']);

/** Nest names its loggers after its classes, which the start-up bundle renames `_InstanceLoader` and the like. */
const contextName = (context?: string): string | undefined => (context?.startsWith('_') ? context.slice(1) : context);

/** Nest's logger interface over pino: one JSON object per line on stdout. */
export class JsonLogger implements LoggerService {
  readonly pino: Pino;

  constructor(level: string) {
    this.pino = pino({ level, base: { service: 'keel' }, timestamp: pino.stdTimeFunctions.isoTime });
  }

  log(message: unknown, context?: string): void {
    this.write(STARTUP_NARRATORS.has(contextName(context) ?? '') ? 'debug' : 'info', message, context);
  }
  error(message: unknown, stackOrContext?: string, context?: string): void {
    const isStack = stackOrContext?.includes('\n    at ');
    if (isStack) this.write('error', { msg: String(message), stack: stackOrContext }, context);
    else this.write('error', message, context ?? stackOrContext);
  }
  warn(message: unknown, context?: string): void {
    this.write('warn', message, context);
  }
  debug(message: unknown, context?: string): void {
    this.write('debug', message, context);
  }
  verbose(message: unknown, context?: string): void {
    this.write('trace', message, context);
  }
  fatal(message: unknown, context?: string): void {
    this.write('fatal', message, context);
  }

  private write(level: 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal', message: unknown, rawContext?: string): void {
    // A line below the level is dropped before its object is copied (the request line, below info).
    if (!this.pino.isLevelEnabled(level)) return;
    const context = contextName(rawContext);
    if (message instanceof Error) this.pino[level]({ context, err: { message: message.message, stack: message.stack } });
    else if (typeof message === 'object' && message !== null) this.pino[level]({ context, ...message });
    else this.pino[level]({ context }, String(message));
  }
}
