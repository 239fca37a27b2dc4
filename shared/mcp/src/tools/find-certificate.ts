import { validationError } from '@certificate-service/sdk';
import { z } from 'zod/v4';
import { defineTool, READ_ONLY } from '../tool';
import { certificateView } from './views';

export default defineTool({
  name: 'find_certificate',
  title: 'Find a certificate by ID or share link',
  description:
    'Looks up one issued certificate by its certificate ID (CERT-…) or by its share token or public certificate URL (…/v/<token>). Give exactly one. ' +
    'Costs 1 request, no quota. Returns the certificate (id, batchId, certificateId, name, email, certUrl, emailStatus, issueDate, data), or found: false.',
  input: {
    certificateId: z.string().optional().describe('The human-readable certificate ID, e.g. CERT-2026-000123-0001.'),
    shareToken: z.string().optional().describe('The share token, or the whole certificate URL.'),
  },
  annotations: READ_ONLY,
  async run({ certificateId, shareToken }, { client }) {
    if (!!certificateId?.trim() === !!shareToken?.trim()) throw validationError('certificateId', 'give exactly one of certificateId or shareToken');
    try {
      const cert = certificateId ? await client.getCertificate(certificateId) : await client.getCertificateByToken(shareToken!);
      return { data: { found: true, certificate: certificateView(cert) } };
    } catch (error) {
      if ((error as { isNotFound?: boolean }).isNotFound && (error as { phase?: string }).phase === 'response') return { data: { found: false } };
      throw error;
    }
  },
});
