import Router from '@koa/router';
import { parseLabelGet, parseLabelOf, parseLabelUpdate } from '../domain/parse-custom-label-request.js';
import type { GatewayState } from '../gateway-state.js';
import { CUSTOM_LABEL_KEYS, type CustomLabelKey, type CustomLabelStore } from '../stores.js';
import { identifyUser, identifyWriter, type IdentifyDeps } from './identify-user.js';

export { MAX_GET_KEYS, MAX_LABEL_CHARS } from '../domain/parse-custom-label-request.js';

const KEYS: ReadonlySet<CustomLabelKey> = new Set(CUSTOM_LABEL_KEYS);

/**
 * `/customlabel/*` as e-mission's cfc_webapp.py serves them and the current app calls them
 * (`phone:www/js/services/commHelper.ts`, through postUserPersonalData, so each body is `{user, <name>: value}`;
 * parsed in domain/parse-custom-label-request.ts):
 * - get `{keys: [key…]}` → `{<key>: [label…]}`
 * - insert `{inserted_label: {key, label}}`, delete `{deleted_label: {key, label}}`,
 *   update `{updated_label: {key, old_label, new_label, is_new_label_must_added}}` → `{label: [label…]}`,
 *   the key's active labels after the change.
 */
export function customLabelRoutes(deps: IdentifyDeps & { labels: CustomLabelStore }): Router<GatewayState> {
  const router = new Router<GatewayState>();

  router.post('/customlabel/get', async (ctx) => {
    const user = await identifyUser(ctx, deps);
    const asked = parseLabelGet(ctx.request.body, KEYS);
    const lists = await Promise.all(asked.map((key) => deps.labels.list(user.uuid, key)));
    ctx.body = Object.fromEntries(asked.map((key, i) => [key, lists[i]]));
  });

  router.post('/customlabel/insert', async (ctx) => {
    const { user } = await identifyWriter(ctx, deps);
    const { key, label } = parseLabelOf(ctx.request.body, 'inserted_label', KEYS);
    ctx.body = { label: await deps.labels.insert(user.uuid, key, label) };
  });

  router.post('/customlabel/update', async (ctx) => {
    const { user } = await identifyWriter(ctx, deps);
    const { key, ...change } = parseLabelUpdate(ctx.request.body, KEYS);
    ctx.body = { label: await deps.labels.update(user.uuid, key, change) };
  });

  router.post('/customlabel/delete', async (ctx) => {
    const { user } = await identifyWriter(ctx, deps);
    const { key, label } = parseLabelOf(ctx.request.body, 'deleted_label', KEYS);
    ctx.body = { label: await deps.labels.remove(user.uuid, key, label) };
  });

  return router;
}
