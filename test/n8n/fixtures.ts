// Response bodies shaped like the spec's resources (section 2).
import { recipientFixture } from '../support/recipient';
export const BASE = 'https://certs.example.test';
export const API = '/api/v1';

export function recipient(n: number, overrides: Record<string, unknown> = {}) {
	return recipientFixture(n, overrides, BASE);
}

export function batch(id: string, overrides: Record<string, unknown> = {}) {
	return { id, title: `Batch ${id}`, designId: 'design_classic', status: 'active', ...overrides };
}

export function apiError(error: string, message: string, detail: Record<string, unknown> = {}) {
	return { error, message, detail };
}
