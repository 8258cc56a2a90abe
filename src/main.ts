// First: holds V8's young generation small while the server starts (see young-generation.ts).
import './common/young-generation';
import { reportFailure, runCli } from './cli/cli';

// `keel [command]`: the server by default (`npm start`, the SDK's `opencode serve --port …`), or an
// operator's command (migrate, doctor, backup, restore, move). See `keel --help`.
runCli(process.argv.slice(2)).then(
  (code) => {
    if (code !== undefined) process.exitCode = code;
  },
  (error: unknown) => {
    process.exitCode = reportFailure(error);
  },
);
