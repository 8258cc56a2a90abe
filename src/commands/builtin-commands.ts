/** `${path}` is replaced with the worktree; the arguments follow the template. */
const INIT_TEMPLATE = `Analyse this repository and write an AGENTS.md file at its root (\${path}) for the coding agents that will work in it.

Cover, in about 150 lines:
1. How to build, lint, type-check and test the project, and above all how to run a single test.
2. The code style: imports, formatting, types, naming, error handling, and the patterns the code already follows.
3. Anything an agent must know to work safely here (generated files, required tools, environment variables).

If the repository has Cursor rules (.cursor/rules/ or .cursorrules) or Copilot instructions (.github/copilot-instructions.md), fold them in.
If an AGENTS.md already exists in \${path}, improve it instead of starting over.

$ARGUMENTS
`;

const REVIEW_TEMPLATE = `Review code changes and report problems. What to review: $ARGUMENTS

- Nothing given: the uncommitted changes (\`git diff\`, \`git diff --cached\`, and untracked files from \`git status\`).
- A commit hash: \`git show <hash>\`.
- A branch name: \`git diff <branch>...HEAD\`.
- A pull request number or URL: \`gh pr view\` and \`gh pr diff\`.

Read the surrounding code before judging a change. Look for bugs, unhandled errors and edge cases, security problems, races, performance traps, and departures from the conventions of the codebase.
Do not change any file. Report each finding with its file and line, how serious it is, and a concrete fix; say so plainly when the change looks good.
`;

interface BuiltInCommand {
  name: string;
  description: string;
  template: string;
  subtask?: boolean;
}

export function builtInCommands(worktree: string): BuiltInCommand[] {
  return [
    { name: 'init', description: 'create/update AGENTS.md', template: INIT_TEMPLATE.replaceAll('${path}', worktree) },
    { name: 'review', description: 'review changes [commit|branch|pr], defaults to uncommitted', template: REVIEW_TEMPLATE, subtask: true },
  ];
}
