import type { RateLimitState } from '@certificate-service/sdk';

/** The stream a progress bar is drawn on: stderr when it is a terminal. */
export interface ProgressStream {
  columns?: number;
  write(text: string): unknown;
}

export interface ProgressSource {
  /** The client's last reading of the RateLimit-* headers. */
  rate(): Readonly<RateLimitState>;
  /** When the client is waiting (pacing, Retry-After): the epoch ms it waits until. */
  waitingUntil(): number | undefined;
}

/**
 * One line on a terminal, redrawn in place: how many rows have an outcome, and where the rate
 * limit stands. While the client waits for the window to reset it says so and counts down,
 * so a pause at 120 requests a minute never looks like a hang.
 */
export function progressBar(stream: ProgressStream, source: ProgressSource, now: () => number = Date.now) {
  let done = 0;
  let total = 0;
  const draw = () => {
    const width = 24;
    const filled = total ? Math.round((done / total) * width) : 0;
    const until = source.waitingUntil();
    const remaining = source.rate().remaining;
    const limit =
      until !== undefined && until > now()
        ? `rate limit: waiting ${Math.ceil((until - now()) / 1000)} s`
        : remaining !== undefined
          ? `rate limit: ${remaining} left`
          : '';
    const line = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}${limit ? ` · ${limit}` : ''}`;
    stream.write(`\r${line.slice(0, (stream.columns || 80) - 1)}\x1b[K`);
  };
  const timer = setInterval(draw, 250);
  timer.unref();
  return {
    update(d: number, t: number) {
      done = d;
      total = t;
      draw();
    },
    stop() {
      clearInterval(timer);
      stream.write('\n');
    },
  };
}
