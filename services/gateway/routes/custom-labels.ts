import Router from '@koa/router';
import { ValidationError } from '../../../shared/errors/index.js';
import type { GatewayState } from '../gateway-state.js';
import {
  CUSTOM_LABEL_KEYS,
  type CustomLabelKey,
  type CustomLabelStore,
} from '../store/cassandra-custom-label-store.js';
import { identifyUser, type IdentifyDeps } from './identify-user.js';

/**
 * Longest label name, in characters (code points). The app's input field takes 25 (`phone:www/js/control/
 * CustomLabelSettingRow.tsx` maxLength) and turns spaces into underscores; labels are ids such as `e_scooter`.
 */
export const MAX_LABEL_CHARS = 100;

/** Most entries in a get's `keys`: the app sends two; a few repeats are tolerated, a long list is not a query. */
export const MAX_GET_KEYS = 10;

/**
 * Characters a label name may not hold: C0/C1 controls and DEL, lone surrogates (not storable as UTF-8), line and
 * paragraph separators, and the bidirectional overrides that make a label display as another.
 */
const FORBIDDEN_CHARS = /[\p{Cc}\p{Cs}\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

type Body = Record<string, unknown>;

/** A field of the body, read only if the body itself has it (never from Object.prototype). */
function field(obj: unknown, name: string): unknown {
  return obj !== null && typeof obj === 'object' && !Array.isArray(obj) && Object.hasOwn(obj, name)
    ? (obj as Body)[name]
    : undefined;
}

function objectField(ctx: { request: { body?: unknown } }, name: string): Body {
  const value = field(ctx.request.body, name);
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new ValidationError(`${name} must be an object`, { details: { field: name } });
  return value as Body;
}

function labelKey(value: unknown, path: string): CustomLabelKey {
  if (typeof value !== 'string' || !CUSTOM_LABEL_KEYS.has(value))
    throw new ValidationError(`${path} must be one of ${[...CUSTOM_LABEL_KEYS].join(', ')}`, {
      details: { field: path },
    });
  return value as CustomLabelKey;
}

/** A label name: a non-blank string of at most MAX_LABEL_CHARS characters, none of them FORBIDDEN_CHARS. */
function labelName(value: unknown, path: string, { allowEmpty = false } = {}): string {
  if (typeof value !== 'string') throw new ValidationError(`${path} must be a string`, { details: { field: path } });
  if (value.trim() === '' && !(allowEmpty && value === ''))
    throw new ValidationError(`${path} must not be empty`, { details: { field: path } });
  // Length first, on UTF-16 units (at least the code points), so the regex never scans an oversized string.
  if (value.length > 2 * MAX_LABEL_CHARS || [...value].length > MAX_LABEL_CHARS)
    throw new ValidationError(`${path} is longer than ${MAX_LABEL_CHARS} characters`, {
      details: { field: path, limit: MAX_LABEL_CHARS },
    });
  if (FORBIDDEN_CHARS.test(value))
    throw new ValidationError(`${path} holds control or non-printable characters`, { details: { field: path } });
  return value;
}

/**
 * `/customlabel/*` as e-mission's cfc_webapp.py serves them and the current app calls them
 * (`phone:www/js/services/commHelper.ts`, through postUserPersonalData, so each body is `{user, <name>: value}`):
 * - get `{keys: [key…]}` → `{<key>: [label…]}`
 * - insert `{inserted_label: {key, label}}`, delete `{deleted_label: {key, label}}`,
 *   update `{updated_label: {key, old_label, new_label, is_new_label_must_added}}` → `{label: [label…]}`,
 *   the key's active labels after the change.
 */
export function customLabelRoutes(deps: IdentifyDeps & { labels: CustomLabelStore }): Router<GatewayState> {
  const router = new Router<GatewayState>();

  router.post('/customlabel/get', async (ctx) => {
    const user = await identifyUser(ctx, deps);
    const keys = field(ctx.request.body, 'keys');
    if (!Array.isArray(keys))
      throw new ValidationError('keys must be a list of label keys', { details: { field: 'keys' } });
    if (keys.length > MAX_GET_KEYS)
      throw new ValidationError(`keys may hold at most ${MAX_GET_KEYS} entries`, {
        details: { field: 'keys', limit: MAX_GET_KEYS },
      });
    const asked = [...new Set(keys.map((k, i) => labelKey(k, `keys[${i}]`)))];
    const lists = await Promise.all(asked.map((key) => deps.labels.list(user.uuid, key)));
    ctx.body = Object.fromEntries(asked.map((key, i) => [key, lists[i]]));
  });

  router.post('/customlabel/insert', async (ctx) => {
    const user = await identifyUser(ctx, deps);
    const inserted = objectField(ctx, 'inserted_label');
    const key = labelKey(field(inserted, 'key'), 'inserted_label.key');
    const label = labelName(field(inserted, 'label'), 'inserted_label.label');
    ctx.body = { label: await deps.labels.insert(user.uuid, key, label) };
  });

  router.post('/customlabel/update', async (ctx) => {
    const user = await identifyUser(ctx, deps);
    const updated = objectField(ctx, 'updated_label');
    const key = labelKey(field(updated, 'key'), 'updated_label.key');
    const rawOld = field(updated, 'old_label');
    // e-mission's own test sends old_label "" for "no previous label"; null and absent mean the same here.
    const oldLabel =
      rawOld === undefined || rawOld === null
        ? null
        : labelName(rawOld, 'updated_label.old_label', { allowEmpty: true });
    const newLabel = labelName(field(updated, 'new_label'), 'updated_label.new_label');
    const addIfMissing = field(updated, 'is_new_label_must_added');
    if (typeof addIfMissing !== 'boolean')
      throw new ValidationError('updated_label.is_new_label_must_added must be true or false', {
        details: { field: 'updated_label.is_new_label_must_added' },
      });
    ctx.body = {
      label: await deps.labels.update(user.uuid, key, { oldLabel: oldLabel || null, newLabel, addIfMissing }),
    };
  });

  router.post('/customlabel/delete', async (ctx) => {
    const user = await identifyUser(ctx, deps);
    const deleted = objectField(ctx, 'deleted_label');
    const key = labelKey(field(deleted, 'key'), 'deleted_label.key');
    const label = labelName(field(deleted, 'label'), 'deleted_label.label');
    ctx.body = { label: await deps.labels.remove(user.uuid, key, label) };
  });

  return router;
}
