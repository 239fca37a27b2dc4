// The error envelope of spec section 7, with our documented statuses for the codes
// whose status the spec leaves blank.

export type ErrorCode =
  | 'MISSING_API_KEY'
  | 'INVALID_API_KEY'
  | 'EXPIRED_API_KEY'
  | 'RATE_LIMITED'
  | 'VALIDATION_ERROR'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'BATCH_ARCHIVED'
  | 'QUOTA_EXCEEDED'
  | 'PLAN_LIMIT_EXCEEDED'
  // Not in the spec: only sent by an injected '500' fault.
  | 'INTERNAL_ERROR';

export const ERROR_STATUS: Record<ErrorCode, number> = {
  MISSING_API_KEY: 401,
  INVALID_API_KEY: 401,
  EXPIRED_API_KEY: 401,
  RATE_LIMITED: 429,
  VALIDATION_ERROR: 400,
  NOT_FOUND: 404,
  CONFLICT: 409,
  BATCH_ARCHIVED: 409,
  QUOTA_EXCEEDED: 402,
  PLAN_LIMIT_EXCEEDED: 403,
  INTERNAL_ERROR: 500,
};

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
