import { memo } from 'react';
import ReactMarkdown from 'react-markdown';
import rehypeHighlight from 'rehype-highlight';
import remarkGfm from 'remark-gfm';

// No raw HTML (no rehype-raw) and react-markdown's default URL filter: a message cannot inject markup or script links.
const remarkPlugins = [remarkGfm];
const rehypePlugins = [[rehypeHighlight, { detect: false, ignoreMissing: true }] as [typeof rehypeHighlight, object]];

/** Memoized on the text: parsing and highlighting run again only when the text changed (a list re-renders on every scroll). */
export const Markdown = memo(function Markdown({ text }: { text: string }) {
  return (
    <div className="keel-markdown">
      <ReactMarkdown remarkPlugins={remarkPlugins} rehypePlugins={rehypePlugins}>
        {text}
      </ReactMarkdown>
    </div>
  );
});
