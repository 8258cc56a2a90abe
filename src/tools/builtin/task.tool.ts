import { defineTool, ToolError } from '../tool';

export const taskTool = defineTool({
  id: 'task',
  description:
    'Launches a subagent in a new child session to handle a complex, multi-step task on its own. Give a short `description` (3-5 words), a complete `prompt` with everything the subagent needs, and the `subagent_type` (an agent name such as "general"). Returns the subagent\'s final answer.',
  parameters: (z) => z.object({
    description: z.string().describe('A short (3-5 words) description of the task'),
    prompt: z.string().describe('The task for the agent to perform'),
    subagent_type: z.string().describe('The type of specialized agent to use for this task'),
  }),
  async execute(args, ctx) {
    if (!ctx.subtask) throw new ToolError('Subagents are not available here');
    ctx.metadata({ title: args.description });
    const result = await ctx.subtask({ description: args.description, prompt: args.prompt, agent: args.subagent_type });
    return {
      title: args.description,
      output: `${result.output}\n\n<task_metadata>\nsession_id: ${result.sessionID}\n</task_metadata>`,
      metadata: { sessionId: result.sessionID },
    };
  },
});
