export function consolePages(options: { q: string; sessionID: string; file?: string; resource?: string }): [string, string][];
