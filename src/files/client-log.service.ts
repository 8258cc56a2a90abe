import { Injectable, Logger } from '@nestjs/common';

export interface ClientLogEntry {
  service: string;
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
  extra?: Record<string, unknown>;
}

/** `app.log`: a client's log line goes into the server log, tagged with the client's service name. */
@Injectable()
export class ClientLogService {
  write(entry: ClientLogEntry): void {
    const logger = new Logger(entry.service);
    // `extra` stays nested so a client cannot overwrite the line's own fields (level, time, context).
    const line = { msg: entry.message, source: 'client', ...(entry.extra ? { extra: entry.extra } : {}) };
    if (entry.level === 'debug') logger.debug(line);
    else if (entry.level === 'info') logger.log(line);
    else if (entry.level === 'warn') logger.warn(line);
    else logger.error(line);
  }
}
