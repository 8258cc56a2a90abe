import { Code, ScrollArea } from '@mantine/core';

function background(line: string): string | undefined {
  if (line.startsWith('+++') || line.startsWith('---')) return undefined;
  if (line.startsWith('+')) return 'var(--mantine-color-green-light)';
  if (line.startsWith('-')) return 'var(--mantine-color-red-light)';
  if (line.startsWith('@@')) return 'var(--mantine-color-blue-light)';
  return undefined;
}

/** A unified diff, its added and removed lines coloured. */
export function DiffBlock({ diff, label }: { diff: string; label: string }) {
  return (
    <ScrollArea.Autosize mah="70vh" type="auto">
      <Code block aria-label={label} tabIndex={0}>
        {diff
          .replace(/\n$/, '')
          .split('\n')
          .map((line, index) => (
            <span key={index} style={{ display: 'block', background: background(line) }}>
              {line || ' '}
            </span>
          ))}
      </Code>
    </ScrollArea.Autosize>
  );
}
