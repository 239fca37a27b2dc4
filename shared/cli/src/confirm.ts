import { UsageError } from '@certificate-service/sdk';
import readline from 'node:readline/promises';

/** Where a question is asked: stdin when it is a terminal, the question on stderr. */
export interface Terminal {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream;
}

/**
 * Asks before a command that cannot be undone: `--yes` answers for the user; on a terminal the
 * user types y (anything else, or just Enter, is no); without a terminal (a script, a pipe) it
 * refuses with a usage error (exit 2, nothing sent), since nobody is there to answer.
 */
export async function confirm(question: string, yes: boolean | undefined, terminal: Terminal): Promise<boolean> {
  if (yes) return true;
  if (!terminal.stdin.isTTY) throw new UsageError(`${question} It cannot be undone, and there is no terminal to ask: pass --yes to confirm.`);
  const rl = readline.createInterface({ input: terminal.stdin, output: terminal.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(`${question} It cannot be undone. [y/N] `)).trim());
  } finally {
    rl.close();
  }
}
