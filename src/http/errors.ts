// One error type for every refusal, and the one renderer that turns it into either envelope (CONTRACT section 8).
import { consola } from 'consola';

export interface ErrorDetail {
  /** JSON Pointer into the request (body, query or header). */
  path: string;
  message: string;
}

export type EnvelopeFamily = 'structured' | 'flat';

/**
 * A refusal with a stable machine code. Handlers throw it; `renderError` writes it.
 * @example throw ApiError.notFound();
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: ErrorDetail[],
    readonly headers?: Record<string, string>,
    /** Extra top-level fields of the flat envelope (e.g. the `rows` of a CSV refusal). */
    readonly extra?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  static unauthorized(): ApiError {
    return new ApiError(401, 'unauthorized', 'Missing or invalid credentials');
  }
  /** The same answer for a missing resource and one the caller may not see. */
  static notFound(message = 'Not found'): ApiError {
    return new ApiError(404, 'not_found', message);
  }
  static forbiddenScope(scope: string): ApiError {
    return new ApiError(403, 'forbidden_scope', `This action needs the ${scope} scope`);
  }
  static invalidPayload(details: ErrorDetail[], message = 'The request body is invalid'): ApiError {
    return new ApiError(400, 'invalid_payload', message, details);
  }
  static invalidParam(details: ErrorDetail[], message = 'A query parameter is invalid'): ApiError {
    return new ApiError(400, 'invalid_param', message, details);
  }
  static invalidJson(message = 'The request body is not valid JSON'): ApiError {
    return new ApiError(400, 'invalid_json', message);
  }
  static payloadTooLarge(limitBytes: number): ApiError {
    return new ApiError(413, 'payload_too_large', `The request body exceeds ${limitBytes} bytes`);
  }
  static unsupportedMediaType(accepted: readonly string[]): ApiError {
    return new ApiError(415, 'unsupported_media_type', `Content-Type must be one of: ${accepted.join(', ')}`);
  }
  /** A body declared in a charset other than UTF-8: it is never decoded, so `raw` stays the bytes received. */
  static unsupportedCharset(charset: string): ApiError {
    return new ApiError(415, 'unsupported_media_type', `The body must be UTF-8; charset ${charset} is not supported`);
  }
  /** A body sent compressed (or in any other content coding): Sightline decodes none (RFC 7694: 415, Accept-Encoding). */
  static unsupportedContentEncoding(coding: string): ApiError {
    return new ApiError(415, 'unsupported_media_type', `Content-Encoding ${coding} is not supported; send the body uncompressed`, undefined, {
      'accept-encoding': 'identity',
    });
  }
  static invalidUtf8(): ApiError {
    return ApiError.invalidJson('The request body is not valid UTF-8');
  }
  static conflict(code: string, message: string): ApiError {
    return new ApiError(409, code, message);
  }
}

const internalErrorMessage = 'Internal server error';

export interface RenderedError {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Any thrown value as status, headers and JSON text; unknown errors become a 500 whose message is hidden. */
export function toErrorParts(error: unknown, family: EnvelopeFamily): RenderedError {
  const apiError = error instanceof ApiError ? error : toInternalError(error);
  const body =
    family === 'structured'
      ? {
          error: {
            code: apiError.code,
            message: apiError.message,
            ...(apiError.details ? { details: apiError.details } : {}),
          },
        }
      : {
          error: apiError.code,
          message: apiError.message,
          ...(apiError.details ? { details: apiError.details } : {}),
          ...apiError.extra,
        };
  return {
    status: apiError.status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...apiError.headers },
    body: JSON.stringify(body),
  };
}

/** Renders any thrown value in the envelope of its route family; unknown errors' stacks are logged. */
export function renderError(error: unknown, family: EnvelopeFamily): Response {
  const parts = toErrorParts(error, family);
  return new Response(parts.body, { status: parts.status, headers: parts.headers });
}

function toInternalError(error: unknown): ApiError {
  consola.error(error);
  return new ApiError(500, 'internal_error', internalErrorMessage);
}
