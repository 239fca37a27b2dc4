import { validationError } from '@certificate-service/sdk';
import { z } from 'zod/v4';
import { defineTool, READ_ONLY } from '../tool';
import { certificateOut, certificateView } from './views';

export default defineTool({
  name: 'find_certificate',
  title: 'Find a certificate',
  description:
    'One certificate by certificateId (CERT-…) or shareToken (token or …/v/<token> URL); give one.',
  input: {
    certificateId: z.string().optional().describe('CERT-….'),
    shareToken: z.string().optional().describe('Token or certificate URL.'),
  },
  output: z.looseObject({ found: z.boolean(), certificate: certificateOut.optional() }),
  annotations: READ_ONLY,
  example: async (on) => ({ certificateId: (await on.certificate()).certificateId }),
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
