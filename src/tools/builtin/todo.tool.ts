import type { Todo } from '../../sessions/session.entity';
import { defineTool } from '../tool';

/** Where a session's todo list lives (the sessions module's TodoService). */
export interface TodoStore {
  get(sessionID: string): Promise<Todo[]>;
  set(sessionID: string, todos: Todo[], directory?: string): Promise<Todo[]>;
}

const todoItem = (z: typeof import('zod').z) =>
  z.object({
  content: z.string().describe('Brief description of the task'),
  status: z.string().describe('Current status of the task: pending, in_progress, completed, cancelled'),
  priority: z.string().describe('Priority level of the task: high, medium, low'),
  id: z.string().describe('Unique identifier for the todo item'),
  });

function summary(todos: Todo[]) {
  return {
    title: `${todos.filter((t) => t.status !== 'completed').length} todos`,
    output: JSON.stringify(todos, null, 2),
    metadata: { todos },
  };
}

export function todoWriteTool(store: TodoStore) {
  return defineTool({
    id: 'todowrite',
    description:
      'Replaces the todo list of this session. Use it to plan multi-step work and track progress: mark one item in_progress at a time and mark items completed as soon as they are done.',
    parameters: (z) => z.object({ todos: z.array(todoItem(z)).describe('The updated todo list') }),
    async execute(args, ctx) {
      return summary(await store.set(ctx.sessionID, args.todos, ctx.directory));
    },
  });
}

export function todoReadTool(store: TodoStore) {
  return defineTool({
    id: 'todoread',
    description: 'Reads the todo list of this session.',
    parameters: (z) => z.object({}),
    async execute(_args, ctx) {
      return summary(await store.get(ctx.sessionID));
    },
  });
}
