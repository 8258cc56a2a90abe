export const STATUS_COLOR = { added: 'teal.9', deleted: 'red.9', modified: 'blue.8' } as const;
export type Change = { path: string; added: number; removed: number; status: keyof typeof STATUS_COLOR };
export type SessionChange = { file: string; before: string; after: string };

/** What the tree marks: git's changes (/file/status) and, when a session is picked, the session's own. */
export interface Marks {
  git: Map<string, Change>;
  session: Map<string, SessionChange>;
}

/** What every list of the files browser is given: the marks, the open file, and how to open one. */
export interface FileListProps {
  marks: Marks;
  open?: string;
  onOpen: (path: string) => void;
}
