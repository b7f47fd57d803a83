import { AppError } from '../../../shared/errors/index.js';

/**
 * A dump that cannot be imported as it stands, in a way skipping one line would hide: an entry without `user_id`
 * and no default user to give it, or a default user that is not a UUID. The import stops rather than guess whose
 * data it is. `details` names the file and the line (NDJSON) or element (JSON array) so the operator can look.
 */
export class ImportFormatError extends AppError {
  readonly code = 'MALFORMED_RECORD';
  readonly status = 422;
  readonly retriable = false;
}
