// Simulated mail provider. Sending is asynchronous, shortly after the API response:
// addresses at @bounce.test are rejected (emailStatus 'failed', certificate.failed),
// every other address is accepted (emailStatus 'sent', certificate.sent).
import type { Events } from './events';
import type { RecipientRecord, Store } from './store';
import type { Timers } from './timers';

export const BOUNCE_DOMAIN = '@bounce.test';
export const BOUNCE_ERROR = 'Mailbox unavailable (simulated bounce)';

export type MailOutcome = { ok: true } | { ok: false; error: string };

/** The whole mail rule, in one place. */
export function mailOutcome(email: string): MailOutcome {
  return email.toLowerCase().endsWith(BOUNCE_DOMAIN) ? { ok: false, error: BOUNCE_ERROR } : { ok: true };
}

export class Mail {
  constructor(
    private readonly store: Store,
    private readonly events: Events,
    private readonly timers: Timers,
    private readonly delayMs: number,
  ) {}

  queue(rec: RecipientRecord): void {
    rec.recipient.emailStatus = 'queued';
    const id = rec.recipient.id;
    this.timers.set(() => this.deliver(id), this.delayMs);
  }

  private deliver(recipientId: string): void {
    const rec = this.store.recipients.get(recipientId);
    // Deleted meanwhile, or already handled: nothing to send.
    if (!rec || rec.recipient.emailStatus !== 'queued') return;
    const outcome = mailOutcome(rec.recipient.email);
    if (outcome.ok) {
      rec.recipient.emailStatus = 'sent';
      rec.recipient.emailSentAt = new Date().toISOString();
      this.events.emit(rec.workspaceId, 'certificate.sent', rec.recipient);
    } else {
      rec.recipient.emailStatus = 'failed';
      this.events.emit(rec.workspaceId, 'certificate.failed', rec.recipient, { error: outcome.error });
    }
  }
}
