import { useEffect, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { useWindowVirtualizer } from '@tanstack/react-virtual';
import type { MessageEntry } from './model';
import { MessageView } from './PartView';

/**
 * A session's messages, virtualized against the window scroll: only those near the viewport are
 * rendered (a shared session can hold thousands), each measured once drawn.
 */
export function MessageList({
  messages,
  actions,
  label = 'Conversation',
}: {
  messages: MessageEntry[];
  actions?: (entry: MessageEntry) => ReactNode;
  label?: string;
}) {
  const listRef = useRef<HTMLDivElement>(null);
  const [margin, setMargin] = useState(0);
  useLayoutEffect(() => {
    const top = listRef.current ? listRef.current.getBoundingClientRect().top + window.scrollY : 0;
    if (Math.abs(top - margin) > 1) setMargin(top);
  });
  const virtualizer = useWindowVirtualizer({
    count: messages.length,
    estimateSize: () => 140,
    overscan: 6,
    scrollMargin: margin,
    getItemKey: (index) => messages[index].info.id,
  });
  // Follows the end while the reader is there (a reply streaming in, a prompt just sent): the window
  // stays at the bottom as the conversation grows; scrolled up to read, it is left alone.
  const following = useRef(false);
  useEffect(() => {
    const onScroll = () => {
      following.current =
        window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 80;
    };
    onScroll();
    window.addEventListener('scroll', onScroll, { passive: true });
    return () => window.removeEventListener('scroll', onScroll);
  }, []);
  const total = virtualizer.getTotalSize();
  useLayoutEffect(() => {
    if (following.current) window.scrollTo({ top: document.documentElement.scrollHeight });
  }, [total, messages.length]);
  return (
    <div
      ref={listRef}
      role="log"
      aria-label={label}
      style={{ position: 'relative', height: virtualizer.getTotalSize() }}
    >
      {virtualizer.getVirtualItems().map((item) => {
        const entry = messages[item.index];
        return (
          <div
            key={item.key}
            data-index={item.index}
            ref={virtualizer.measureElement}
            style={{
              position: 'absolute',
              top: 0,
              left: 0,
              width: '100%',
              transform: `translateY(${item.start - margin}px)`,
              paddingBottom: 12,
            }}
          >
            <MessageView entry={entry} actions={actions?.(entry)} />
          </div>
        );
      })}
    </div>
  );
}
