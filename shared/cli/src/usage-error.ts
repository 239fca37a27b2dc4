/** Bad flags or bad input: reported on stderr with exit code 2, before any request. */
export class UsageError extends Error {
  override name = 'UsageError';
}
