/**
 * Keeps a started sandbox until it is told to stop, and then closes it and exits: on Ctrl+C
 * (SIGINT), on SIGTERM, and when the process that started this one goes away. That last one is
 * for `npm exec … certsvc-sandbox &` and `npm start -- --serve &`: npm runs the command under
 * `sh -c`, which does not pass on a kill of npm's pid, so the sandbox would outlive it. When its
 * parent is gone the process is re-parented and its ppid changes.
 */
export function stopWithParent(sandbox: { close(): Promise<void> }): void {
  let closing: Promise<void> | undefined;
  const stop = () => void (closing ??= sandbox.close().then(() => process.exit(0)));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  const parent = process.ppid;
  setInterval(() => process.ppid !== parent && stop(), 250).unref();
}
