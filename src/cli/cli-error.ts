/** A command that cannot do what it was asked: one line for the operator, and the exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}
