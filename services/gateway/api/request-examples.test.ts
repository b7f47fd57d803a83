import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../../../shared/config/repo-root.js';
import { acceptPutEntries, MAX_ENTRIES_PER_PUT, PutRejection } from '../../../shared/events/index.js';
import { EXPORT_FORMATS } from '../../export/domain/export-formats.js';
import { parseExportRange } from '../../export/domain/export-range.js';
import { tokenFromBody } from '../auth/resolve-token.js';
import { parseLabelGet, parseLabelOf, parseLabelUpdate } from '../domain/parse-custom-label-request.js';
import { parseFindEntriesQuery } from '../domain/parse-find-entries-query.js';
import { parseMetricsCall, parseSectionMetricsQuery } from '../domain/parse-metrics-query.js';
import { parseProfileUpdate } from '../domain/parse-profile-update.js';
import type { Body } from '../domain/request-body.js';
import { CUSTOM_LABEL_KEYS } from '../stores.js';
import type { PhoneRoute } from './phone-route.js';
import { PHONE_ROUTES } from './phone-routes.js';

/*
 * The phone API's bodies are checked by hand-written parsers (their messages and `field` details are part of the
 * API); the declared schemas only describe them. These checks keep the two saying the same: each declared example
 * passes the route's parser, and bodies the parser refuses are refused by the schema too.
 */

const KEYS = new Set(CUSTOM_LABEL_KEYS);

/** The route's own check of a body, as the route runs it; throws what the route would answer. */
const PARSERS: Record<string, (body: Body) => unknown> = {
  'post /profile/update': (b) => parseProfileUpdate(b),
  'post /usercache/put': (b) => putEntries(b['phone_to_server']),
  'post /usercache/putone': (b) => putEntries([b['the_entry']]),
  'post /datastreams/find_entries/:timeType': (b) => parseFindEntriesQuery(b, { nowS: 1_700_000_000 }),
  'post /result/metrics/:timeType': (b) => [parseMetricsCall(b), parseSectionMetricsQuery('timestamp', b)],
  'post /customlabel/get': (b) => parseLabelGet(b, KEYS),
  'post /customlabel/insert': (b) => parseLabelOf(b, 'inserted_label', KEYS),
  'post /customlabel/update': (b) => parseLabelUpdate(b, KEYS),
  'post /customlabel/delete': (b) => parseLabelOf(b, 'deleted_label', KEYS),
  'post /export/:format': (b) => parseExportRange(b, '2024-06-30'),
};

function putEntries(list: unknown) {
  const accepted = acceptPutEntries(list, MAX_ENTRIES_PER_PUT);
  if (accepted instanceof PutRejection) throw new Error(accepted.message);
  return accepted;
}

const routeOf = (key: string): PhoneRoute => {
  const found = PHONE_ROUTES.find((r) => `${r.method} ${r.path}` === key);
  if (!found) throw new Error(`no declaration of ${key}`);
  return found;
};

/** Bodies the routes' parsers refuse (400), by route. */
const REFUSED: Record<string, Body[]> = {
  'post /profile/update': [{ user: 'a' }, { user: 'a', update_doc: [] }, { user: 'a', update_doc: 'x' }],
  'post /usercache/put': [
    { user: 'a', phone_to_server: {} },
    { user: 'a', phone_to_server: [{ metadata: { write_ts: 1_700_000_000 }, data: {} }] },
    { user: 'a', phone_to_server: [{ metadata: { key: 'k', write_ts: -1 }, data: {} }] },
    { user: 'a', phone_to_server: [{ metadata: { key: 'k', write_ts: 1_700_000_000, type: 'document' }, data: {} }] },
    { user: 'a', phone_to_server: [{ metadata: { key: 'k', write_ts: 1_700_000_000 } }] },
  ],
  'post /datastreams/find_entries/:timeType': [
    { user: 'a', trunc_method: 'middle' },
    { user: 'a', end_time: 'now' },
    { user: 'a', max_entries: 0 },
    { user: 'a', key_list: 'background/location' },
  ],
  'post /result/metrics/:timeType': [
    { user: 'a', start_time: 1_700_000_000, end_time: 1_700_086_400, freq: 'W' },
    { user: 'a', start_time: 1_700_000_000, end_time: 1_700_086_400, metric_list: ['speed'] },
    { user: 'a', start_time: 1_700_000_000, end_time: 1_700_086_400, aggregate: 'yes' },
  ],
  'post /customlabel/get': [
    { user: 'a', keys: 'mode' },
    { user: 'a', keys: ['colour'] },
  ],
  'post /customlabel/insert': [
    { user: 'a', inserted_label: { key: 'colour', label: 'red' } },
    { user: 'a', inserted_label: { key: 'mode', label: '' } },
    { user: 'a', inserted_label: { key: 'mode' } },
  ],
  'post /customlabel/update': [
    { user: 'a', updated_label: { key: 'mode', old_label: 'walk', new_label: 'bike' } },
    { user: 'a', updated_label: { key: 'mode', new_label: 7, is_new_label_must_added: true } },
  ],
  'post /export/:format': [
    { user: 'a', start_date: '2024-02-30' },
    { user: 'a', end_date: '30/05/2024' },
  ],
};

describe('the declared request schemas and the routes’ own parsers', () => {
  it('has a parser check for every route whose body is checked by a parser', () => {
    const checked = PHONE_ROUTES.filter((r) => r.validatedBy && r.path !== '/profile/create');
    expect(checked.map((r) => `${r.method} ${r.path}`).sort()).toEqual(Object.keys(PARSERS).sort());
  });

  it.each(Object.keys(PARSERS))('%s: the declared example passes the route’s parser', (key) => {
    const example = routeOf(key).example as Body;
    expect(() => PARSERS[key]!(example)).not.toThrow();
    expect(tokenFromBody(example)).toBe(example['user']);
  });

  it.each(Object.entries(REFUSED))('%s: what the parser refuses, the schema refuses', (key, bodies) => {
    const schema = routeOf(key).body!;
    for (const body of bodies) {
      expect(() => PARSERS[key]!(body), JSON.stringify(body)).toThrow();
      expect(schema.safeParse(body).success, JSON.stringify(body)).toBe(false);
    }
  });

  it('names, in validatedBy, a module that exists and holds the function named', () => {
    for (const r of PHONE_ROUTES) {
      if (!r.validatedBy) continue;
      const [file, fn] = r.validatedBy.split(/[ ,]+/);
      const path = [join(repoRoot, file!), join(repoRoot, 'services/gateway', file!)].find((p) => existsSync(p));
      expect(path, r.validatedBy).toBeDefined();
      if (fn && /^[a-z]\w+$/i.test(fn)) expect(readFileSync(path!, 'utf8'), r.validatedBy).toContain(fn);
    }
  });

  it('lists, in the export route’s description, every format the export service offers', () => {
    const description = routeOf('post /export/:format').description ?? '';
    for (const format of Object.keys(EXPORT_FORMATS)) expect(description).toContain(format);
  });
});
