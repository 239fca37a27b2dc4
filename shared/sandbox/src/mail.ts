// Simulated mail provider. Sending is asynchronous, shortly after the API response:
// addresses at @bounce.test are rejected (emailStatus 'failed', certificate.failed),
// every other address is accepted (emailStatus 'sent', certificate.sent).
import type { Events } from './events';
import type { RecipientRecord, Store } from './store';
import type { Timers } from './timers';
import type { FailedSendTime } from './choices';

export const BOUNCE_DOMAIN = '@bounce.test';
export const BOUNCE_ERROR = 'Mailbox unavailable (simulated bounce)';

export type MailOutcome = { ok: true } | { ok: false; error: string };

/** The whole mail rule, in one place. */
export function mailOutcome(email: string): MailOutcome {
  return email.toLowerCase().endsWith(BOUNCE_DOMAIN) ? { ok: false, error: BOUNCE_ERROR } : { ok: true };
}

export class Mail {
  /** Queued and not yet handled, in queue order. */
  private readonly pending = new Set<string>();

  constructor(
    private readonly store: Store,
    private readonly events: Events,
    private readonly timers: Timers,
    private readonly delayMs: number,
    /** The service's timestamp for `emailSentAt` (context.stamp). */
    private readonly stamp: () => string,
    private readonly failedSendTime: FailedSendTime,
  ) {}

  queue(rec: RecipientRecord): void {
    rec.recipient.emailStatus = 'queued';
    this.store.touch(rec.recipient.batchId);
    const id = rec.recipient.id;
    this.pending.add(id);
    this.timers.set(() => this.deliver(id), this.delayMs);
  }

  /** Hands every queued email to the provider now (tests that step a clock of their own). */
  settle(): void {
    for (const id of [...this.pending]) this.deliver(id);
  }

  private deliver(recipientId: string): void {
    this.pending.delete(recipientId);
    const rec = this.store.recipients.get(recipientId);
    // Deleted meanwhile, or already handled: nothing to send.
    if (!rec || rec.recipient.emailStatus !== 'queued') return;
    const outcome = mailOutcome(rec.recipient.email);
    this.store.touch(rec.recipient.batchId);
    if (outcome.ok) {
      rec.recipient.emailStatus = 'sent';
      rec.recipient.emailSentAt = this.stamp();
      this.events.emit(rec.workspaceId, 'certificate.sent', rec.recipient);
    } else {
      // The spec names no failure time: emailSentAt keeps the last successful send's (choices.ts).
      rec.recipient.emailStatus = 'failed';
      if (this.failedSendTime === 'attempt') rec.recipient.emailSentAt = this.stamp();
      this.events.emit(rec.workspaceId, 'certificate.failed', rec.recipient, { error: outcome.error });
    }
  }
}
