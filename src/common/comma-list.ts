/** The entries of a comma-separated list (a setting, a router field), trimmed, empty ones dropped. */
export function commaList(value: string | null | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
}
