import { defineTool } from '../tool';

/** Where unknown or malformed tool calls are routed, so the model sees what went wrong. */
export const invalidTool = defineTool({
  id: 'invalid',
  description: 'Do not use',
  parameters: (z) => z.object({ tool: z.string(), error: z.string() }),
  execute(args) {
    return Promise.resolve({ title: 'Invalid Tool', output: `The arguments provided to the tool are invalid: ${args.error}`, metadata: {} });
  },
});
