import { isAppError, PayloadTooLargeError, UnsupportedMediaTypeError, ValidationError } from '../errors/index.js';

/**
 * The parser's errors as AppErrors: by raw-body's documented `type` codes and the JSON parser's SyntaxError, never
 * by message. A bound of the gateway's body-limits.ts comes through as the AppError it is; anything else is a bug (500).
 */
export function bodyParserError(err: unknown): unknown {
  if (isAppError(err)) return err;
  if (err instanceof SyntaxError) return new ValidationError(`request body is not valid JSON: ${err.message}`);
  switch ((err as { type?: unknown }).type) {
    case 'entity.too.large':
      return new PayloadTooLargeError('request body exceeds the limit of its route', { cause: err });
    case 'request.size.invalid':
      return new ValidationError('the request body is not as long as its Content-Length says', { cause: err });
    case 'request.aborted':
      return new ValidationError('the client closed the connection before the body ended', { cause: err });
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new UnsupportedMediaTypeError('the request body has an encoding or charset the server cannot read', {
        cause: err,
      });
    default:
      return err;
  }
}
