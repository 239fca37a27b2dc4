import { one } from '../decode';
import type { Recipient } from '../types';
import { shareTokenFrom } from '../validation';
import type { Api } from './api';
import { ENDPOINTS } from './endpoints';

const certificate = one<Recipient>('a certificate', ['certificate', 'recipient'], ['id', 'batchId']);

export async function getCertificate(api: Api, certificateId: string): Promise<Recipient> {
  return await api.call({ endpoint: ENDPOINTS.getCertificate, params: { certificateId } }, certificate);
}

/** Takes the share token, or the whole certificate URL (`…/v/<shareToken>`). */
export async function getCertificateByToken(api: Api, shareTokenOrUrl: string): Promise<Recipient> {
  return await api.call({ endpoint: ENDPOINTS.getCertificateByToken, params: { shareToken: shareTokenFrom(shareTokenOrUrl, 'shareToken') } }, certificate);
}
