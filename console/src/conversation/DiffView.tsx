import { useMemo } from 'react';
import { createTwoFilesPatch } from 'diff';

/** A unified diff of `before` → `after`, one coloured line per row. */
export function DiffView({ file, before, after }: { file: string; before: string; after: string }) {
  const lines = useMemo(
    () => createTwoFilesPatch(file, file, before, after, '', '', { context: 3 }).split('\n').slice(2),
    [file, before, after],
  );
  return (
    <div className="keel-diff" role="region" aria-label={`Changes to ${file}`}>
      {lines.map((line, i) => (
        <div
          key={i}
          className={
            line.startsWith('@@')
              ? 'hunk'
              : line.startsWith('+')
                ? 'add'
                : line.startsWith('-')
                  ? 'del'
                  : undefined
          }
        >
          {line || ' '}
        </div>
      ))}
    </div>
  );
}
