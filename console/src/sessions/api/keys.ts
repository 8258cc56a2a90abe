/** Query keys of the session console; the event stream updates these entries in place. */
export const sessionKeys = {
  all: ['sessions'] as const,
  openableProjects: ['sessions', 'openable-projects'] as const,
  directories: (path: string | null) => ['sessions', 'directories', path] as const,
  list: (directory: string) => ['sessions', 'list', directory] as const,
  session: (directory: string, id: string) => ['sessions', 'session', directory, id] as const,
  messages: (directory: string, id: string) => ['sessions', 'messages', directory, id] as const,
  permissions: ['sessions', 'permissions'] as const,
  todos: (directory: string, id: string) => ['sessions', 'todos', directory, id] as const,
  diff: (directory: string, id: string) => ['sessions', 'diff', directory, id] as const,
  status: (directory: string) => ['sessions', 'status', directory] as const,
  agents: (directory: string) => ['sessions', 'agents', directory] as const,
  providers: (directory: string) => ['sessions', 'providers', directory] as const,
  commands: (directory: string) => ['sessions', 'commands', directory] as const,
  mentionFiles: (directory: string, query: string | undefined) =>
    ['sessions', 'mention-files', directory, query] as const,
  findFiles: (directory: string, query: string) => ['sessions', 'find-files', directory, query] as const,
  fileStatus: (directory: string) => ['sessions', 'file-status', directory] as const,
  fileList: (directory: string, path: string) => ['sessions', 'file-list', directory, path] as const,
  fileContent: (directory: string, path: string) => ['sessions', 'file-content', directory, path] as const,
  terminals: (directory: string) => ['sessions', 'pty', directory] as const,
};
