import { ValidationError } from '../../../shared/errors/index.js';

/** A request's parsed JSON object body, as the parsers of domain/ read it. */
export type Body = Readonly<Record<string, unknown>>;

/** The parsed body as an object (what every call sends): any other JSON value is a 400. */
export function jsonObject(body: unknown): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw new ValidationError('request body must be a JSON object');
  return body as Record<string, unknown>;
}

/** The body a route was given: `{}` when there was none. */
export function bodyOf(body: unknown): Body {
  return (body ?? {}) as Body;
}

/** A field of an object, read only if the object itself has it (never from Object.prototype). */
export function ownField(obj: unknown, name: string): unknown {
  return obj !== null && typeof obj === 'object' && !Array.isArray(obj) && Object.hasOwn(obj, name)
    ? (obj as Body)[name]
    : undefined;
}

/** A field that must hold an object; `path` names it in the 400 (`updated_label`, `from_local_date`). */
export function objectField(obj: unknown, name: string, message = `${name} must be an object`): Body {
  const value = ownField(obj, name);
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new ValidationError(message, { details: { field: name } });
  return value as Body;
}
