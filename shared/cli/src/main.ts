#!/usr/bin/env node
// `certsvc`: the Certificate Service from the command line. Exit codes: 0 done, 1 the service
// refused something (or some rows failed), 2 a usage error (nothing was sent).
import { CommanderError } from 'commander';
import { CertificateServiceError, hostHint, type HostWords, UsageError } from '@certificate-service/sdk';
import { type Io, processIo } from './io';
import { program } from './program';

export type { Io } from './io';
export { program } from './program';

/** The CLI's words after the core's hint: its environment variables and commands. */
const CLI_WORDS: HostWords = {
  auth: 'Set the key in CERTSVC_API_KEY (or pass --api-key).',
  'issue-unknown': 'Run the same certsvc issue command again: rows already in the batch are skipped.',
  'subscription-limit': 'List them with "certsvc subscriptions list" and remove one with "certsvc subscriptions delete <id>".',
  'unexpected-response': 'Check CERTSVC_BASE_URL (or --base-url).',
  unreachable: 'Check CERTSVC_BASE_URL (or --base-url); the local sandbox answers at http://127.0.0.1:4010/api/v1 once started (`npm start -- --serve` in a clone, or `certsvc-sandbox`).',
};

/** Runs the command line; resolves to the exit code (an unexpected error is said on stderr, exit 1). */
export async function main(argv: string[], io: Io = processIo): Promise<number> {
  const result = { exitCode: 0 };
  try {
    await program(result, io).parseAsync(argv);
    return result.exitCode;
  } catch (error) {
    // Commander has already printed its message (unknown option, missing argument, --help).
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    if (error instanceof UsageError) {
      io.stderr.write(`certsvc: ${error.message}\n`);
      return 2;
    }
    if (error instanceof CertificateServiceError) {
      const hint = hostHint(error, CLI_WORDS);
      io.stderr.write(`certsvc: ${error.message}\n${hint ? `${hint}\n` : ''}`);
      // Refused before sending (status 0, bad input) is a usage error; anything the service said is not.
      return error.code === 'VALIDATION_ERROR' && error.status === 0 ? 2 : 1;
    }
    io.stderr.write(`certsvc: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

if (require.main === module) void main(process.argv).then((code) => (process.exitCode = code));
