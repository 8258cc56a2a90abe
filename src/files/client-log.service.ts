import { Injectable, Logger } from '@nestjs/common';

export interface ClientLogEntry {
  service: string;
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
  extra?: Record<string, unknown>;
}

/** The logger method of each client level. */
const LOGGER_METHODS = { debug: 'debug', info: 'log', warn: 'warn', error: 'error' } as const;

/** `app.log`: a client's log line goes into the server log, tagged with the client's service name. */
@Injectable()
export class ClientLogService {
  write(entry: ClientLogEntry): void {
    const logger = new Logger(entry.service);
    // `extra` stays nested so a client cannot overwrite the line's own fields (level, time, context).
    const line = { msg: entry.message, source: 'client', ...(entry.extra ? { extra: entry.extra } : {}) };
    logger[LOGGER_METHODS[entry.level] ?? 'error'](line);
  }
}
