// The error envelope of spec section 7; the statuses of the codes the spec leaves blank are
// our choice, in choices.ts.

import { ERROR_STATUS, type ErrorCode } from './choices';

export { ERROR_STATUS, type ErrorCode };

export interface ErrorBody {
  error: ErrorCode;
  message: string;
  detail: Record<string, unknown>;
}

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly detail: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, detail: Record<string, unknown> = {}, status = ERROR_STATUS[code]) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = status;
    this.detail = detail;
  }

  toBody(): ErrorBody {
    return { error: this.code, message: this.message, detail: this.detail };
  }
}

export function validationError(field: string, message: string, extra: Record<string, unknown> = {}): ApiError {
  return new ApiError('VALIDATION_ERROR', message, { field, ...extra });
}

export function notFound(resource: string, id: string): ApiError {
  return new ApiError('NOT_FOUND', `No ${resource} "${id}" exists in this workspace (check the id and the API key).`, { resource, id });
}
