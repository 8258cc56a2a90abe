import { memo, useMemo } from 'react';
import ReactMarkdown from 'react-markdown';
import rehypeHighlight from 'rehype-highlight';
import remarkGfm from 'remark-gfm';

// No raw HTML (no rehype-raw) and react-markdown's default URL filter: a message cannot inject markup or script links.
const remarkPlugins = [remarkGfm];
// rehype-highlight registers every highlight.js grammar each time its plugin is attached, and
// react-markdown attaches the plugins on every render: the transformer is made once and shared.
const highlight = rehypeHighlight({ detect: false });
const rehypePlugins = [() => highlight];

/**
 * The text cut into top-level blocks at blank lines outside fenced code; a block whose first line is
 * indented (a list item's continuation, indented code) stays with the one before. Streamed text only
 * grows at its end, so every block but the last is final.
 */
function markdownBlocks(text: string): string[] {
  const blocks: string[] = [];
  let current: string[] = [];
  let fence: string | undefined;
  let blank = false;
  for (const line of text.split('\n')) {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker)
        fence = undefined;
    } else if (line.trim() === '') {
      blank = true;
    } else {
      if (blank && current.length > 0 && !/^\s/.test(line)) {
        blocks.push(current.join('\n'));
        current = [];
      }
      blank = false;
      if (marker) fence = marker;
    }
    current.push(line);
  }
  blocks.push(current.join('\n'));
  return blocks;
}

const Block = memo(function Block({ text }: { text: string }) {
  return (
    <ReactMarkdown remarkPlugins={remarkPlugins} rehypePlugins={rehypePlugins}>
      {text}
    </ReactMarkdown>
  );
});

/**
 * Markdown rendered block by block, each block memoized on its text: a streamed delta re-parses only
 * the last block, and a list that re-renders on every scroll parses nothing again.
 */
export const Markdown = memo(function Markdown({ text }: { text: string }) {
  const blocks = useMemo(() => markdownBlocks(text), [text]);
  return (
    <div className="keel-markdown">
      {blocks.map((block, i) => (
        <Block key={i} text={block} />
      ))}
    </div>
  );
});
