import { ValidationError } from '../../../shared/errors/index.js';
import type { Body } from './request-body.js';

/** `/profile/update`'s `{update_doc: {…}}`: the fields to set; `user_id` is the server's and never taken. */
export function parseProfileUpdate(b: Body): Record<string, unknown> {
  const update = b['update_doc'];
  if (update === null || typeof update !== 'object' || Array.isArray(update))
    throw new ValidationError('update_doc must be an object');
  const { user_id: _ignored, ...fields } = update as Record<string, unknown>;
  return fields;
}
