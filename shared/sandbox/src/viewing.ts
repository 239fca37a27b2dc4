// Viewing a certificate (the domain side of GET /v/<shareToken>): the first view of a
// recipient fires certificate.viewed, never again. The HTTP page (routes/viewer.ts) and
// controls.viewCertificate() both call it.
import type { Recipient, Viewer } from '@certificate-service/sdk';
import type { SandboxContext } from './context';

export type ViewerInfo = Omit<Viewer, 'viewedAt'>;

export function recordView(sb: SandboxContext, shareToken: string, info: ViewerInfo): Recipient | null {
  const rec = sb.store.byShareToken.get(shareToken);
  if (!rec) return null;
  sb.counters.views++;
  if (!rec.viewed) {
    rec.viewed = true;
    const viewer: Viewer = { viewedAt: new Date().toISOString(), ...info };
    sb.events.emit(rec.workspaceId, 'certificate.viewed', rec.recipient, { viewer });
  }
  return rec.recipient;
}
