import { useEffect, useRef, useState } from 'react';

/**
 * A field's local value that follows the server's (a change elsewhere) unless the user has edited it
 * since: a refresh never overwrites what is being typed. `submitted()` before a save lets the saved,
 * possibly normalized, value replace what was typed.
 */
export function useServerValue<T>(server: T): [T, (value: T) => void, () => void] {
  const [value, setValue] = useState(server);
  const synced = useRef(server);
  useEffect(() => {
    setValue((current) => (current === synced.current ? server : current));
    synced.current = server;
  }, [server]);
  return [value, setValue, () => (synced.current = value)];
}
