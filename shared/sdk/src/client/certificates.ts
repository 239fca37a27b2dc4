import { one } from '../decode';
import type { Recipient } from '../types';
import { shareTokenFrom } from '../validation';
import { seg, type Api } from './api';

const certificate = one<Recipient>('a certificate', ['certificate', 'recipient'], ['id', 'batchId']);

export async function getCertificate(api: Api, certificateId: string): Promise<Recipient> {
  return await api.call({ method: 'GET', route: '/certificates/{certificateId}', path: `/certificates/${seg(certificateId, 'certificateId')}` }, certificate);
}

/** Takes the share token, or the whole certificate URL (`…/v/<shareToken>`). */
export async function getCertificateByToken(api: Api, shareTokenOrUrl: string): Promise<Recipient> {
  const token = encodeURIComponent(shareTokenFrom(shareTokenOrUrl, 'shareToken'));
  return await api.call({ method: 'GET', route: '/certificates/by-token/{shareToken}', path: `/certificates/by-token/${token}` }, certificate);
}
