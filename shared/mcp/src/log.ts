// Logs go to stderr, never stdout: over stdio, stdout carries only protocol messages, and a
// stray line there breaks the client's parser. Every line is redacted.
import type { Redactor } from './redact';

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
}

export function stderrLogger(redactor: Redactor, stream: { write(text: string): unknown } = process.stderr): Logger {
  const line = (level: string, message: string) => void stream.write(`certsvc-mcp ${level}: ${redactor.text(message)}\n`);
  return { info: (m) => line('info', m), warn: (m) => line('warn', m) };
}

/** For in-process use where nothing should be printed. */
export const silentLogger: Logger = { info: () => undefined, warn: () => undefined };
