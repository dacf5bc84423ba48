// The `sightline` executable: serve, administration commands and diagnostics (the tree in cli/commands.ts).
import { sightlineCommand } from './cli/commands.ts';
import { runCommandLine } from './cli/command-line.ts';
import { restrictNewFileModes } from './db/file-modes.ts';

// Before any command runs: every file and directory the CLI or the server creates is private (0600, 0700).
restrictNewFileModes();
// `--version` alone prints all three versions (citty's own would print Sightline's only).
const rawArgs = process.argv.slice(2);
// No top-level await: the single executable's bundle is CommonJS. runCommandLine reports its own errors and exit status.
void runCommandLine(sightlineCommand, rawArgs.length === 1 && (rawArgs[0] === '--version' || rawArgs[0] === '-v') ? ['version'] : rawArgs);
