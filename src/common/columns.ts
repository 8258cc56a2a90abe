import { Column, ColumnOptions, ValueTransformer } from 'typeorm';

/** JSON text as stored, read back (also for rows a repository reads in its own SQL). */
export const jsonText: ValueTransformer = {
  to: (value: unknown) => (value === undefined || value === null ? null : JSON.stringify(value)),
  from: (value: string | null) => (value === null || value === undefined ? undefined : JSON.parse(value)),
};

// PostgreSQL returns bigint as a string; epoch milliseconds fit a JS number exactly.
/** Epoch milliseconds as stored, read back as a number. */
export const epochMs: ValueTransformer = {
  to: (value: number | null | undefined) => value ?? null,
  from: (value: string | number | null) => (value === null || value === undefined ? undefined : Number(value)),
};

/** A JSON document stored as text (same on SQLite and PostgreSQL). */
export function JsonColumn(options: ColumnOptions = {}): PropertyDecorator {
  return Column({ type: 'text', nullable: true, transformer: jsonText, ...options });
}

/** Epoch milliseconds as a bigint column, read back as a number. */
export function EpochColumn(options: ColumnOptions = {}): PropertyDecorator {
  return Column({ type: 'bigint', transformer: epochMs, ...options });
}
