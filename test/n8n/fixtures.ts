// Response bodies shaped like the spec's resources (section 2).
export const BASE = 'https://certs.example.test';
export const API = '/api/v1';

export function recipient(n: number, overrides: Record<string, unknown> = {}) {
	return {
		id: `rec_${n}`,
		batchId: 'batch_1',
		name: `Person ${n}`,
		email: `person${n}@example.com`,
		certificateId: `CERT-2026-0001-${String(n).padStart(4, '0')}`,
		shareToken: `tok${n}`,
		certUrl: `${BASE}/v/tok${n}`,
		issueDate: '2026-01-01T00:00:00.000Z',
		expiryDate: null,
		data: {},
		emailStatus: 'not_sent',
		emailSentAt: null,
		createdAt: '2026-01-01T00:00:00.000Z',
		...overrides,
	};
}

export function batch(id: string, overrides: Record<string, unknown> = {}) {
	return { id, title: `Batch ${id}`, designId: 'design_classic', status: 'active', ...overrides };
}

export function apiError(error: string, message: string, detail: Record<string, unknown> = {}) {
	return { error, message, detail };
}
