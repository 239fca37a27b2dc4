// The one shape of a command: `(flags, { connection, io }) => exit code`, registered one way
// (`action`), so every command reads its flags, reaches the service and ends the same way.
import type { Command } from 'commander';
import { connect, type Connection, type ConnectionFlags } from './connect';
import type { Io } from './io';

export interface Context {
  /**
   * The service, connected when a command first reads this (destructuring it reads it): a command
   * that calls none (verify) needs no key, and one that asks first (a delete) asks before a missing key is said.
   */
  readonly connection: Connection;
  io: Io;
}

/** A command: its flags (options and arguments, by their names) to its exit code (main.ts). */
export type Run<Flags> = (flags: Flags, context: Context) => Promise<number>;

/** Prints an answer as every command prints one (indented JSON); exit 0. */
export function print(io: Pick<Io, 'stdout'>, value: unknown): number {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  return 0;
}

/**
 * Makes `run` the action of `command`: its flags are the options (the global --api-key and
 * --base-url too) and the arguments by the names `.argument()` gave them; its exit code goes to `exit`.
 */
export function action<Flags>(command: Command, run: Run<Flags>, io: Io, exit: (code: number) => void): Command {
  return command.action(async () => {
    const args = Object.fromEntries(command.registeredArguments.map((argument, i) => [argument.name(), command.processedArgs[i]]));
    let connection: Connection | undefined;
    const context: Context = {
      io,
      // The key and URL: a flag, else the environment (connect.ts), read from io.env, not process.env.
      get connection() {
        return (connection ??= connect(command.optsWithGlobals<ConnectionFlags>(), io.env));
      },
    };
    exit(await run({ ...command.optsWithGlobals(), ...args } as Flags, context));
  });
}
