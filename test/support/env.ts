/**
 * Sets process.env entries for an in-process server (config and provider keys are read from the
 * environment at request time); `undefined` removes a variable. Returns the restorer.
 */
export function setEnv(values: Record<string, string | undefined>): () => void {
  const saved = Object.fromEntries(Object.keys(values).map((k) => [k, process.env[k]]));
  const apply = (v: Record<string, string | undefined>) => {
    for (const [k, value] of Object.entries(v)) {
      if (value === undefined) delete process.env[k];
      else process.env[k] = value;
    }
  };
  apply(values);
  return () => apply(saved);
}
