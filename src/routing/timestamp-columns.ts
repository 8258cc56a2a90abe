import { Column } from 'typeorm';

// `Date` maps to `datetime` on SQLite (same NUMERIC affinity as the spec's TIMESTAMP) and to
// `timestamp` on PostgreSQL. Not selected by default: adopted v3 rows hold mixed Go time formats
// that would not parse, and the API never returns timestamps.
const timestamp = { type: Date, default: () => 'CURRENT_TIMESTAMP', nullable: true, select: false } as const;

export const CreatedAtColumn = (): PropertyDecorator => Column({ ...timestamp });
export const UpdatedAtColumn = CreatedAtColumn;
