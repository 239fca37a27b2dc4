/**
 * Bad flags or bad input to a command-line program (certsvc, certsvc-mcp): said on stderr with
 * exit code 2, before any request. One class, so each program's `instanceof` sees the other's.
 */
export class UsageError extends Error {
  override name = 'UsageError';
}
