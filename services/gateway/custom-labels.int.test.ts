import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_LABEL_CHARS } from './routes/custom-labels.js';
import { MAX_LABELS_PER_KEY } from './store/cassandra-custom-label-store.js';
import { startGateway, type RunningGateway } from '../../test/helpers/gateway.js';
import { createTestEnv, type TestEnv } from '../../test/helpers/test-env.js';

let env: TestEnv;
let gw: RunningGateway;

beforeAll(async () => {
  env = await createTestEnv();
  gw = await startGateway(env);
});
afterAll(async () => {
  await gw?.close();
  await env?.dispose();
});

async function registered(token: string): Promise<string> {
  const res = await gw.post('/profile/create', { user: token });
  expect(res.status).toBe(200);
  return res.body.uuid as string;
}

// The bodies exactly as the app's commHelper.ts builds them: postUserPersonalData(path, name, value) sends
// `{<name>: value}` and the native layer adds `user`; the connectUrl's trailing slash doubles the first slash.
const app = {
  get: (user: string, keys: unknown) => gw.post('//customlabel/get', { keys, user }),
  insert: (user: string, key: string, label: string) =>
    gw.post('//customlabel/insert', { inserted_label: { key, label }, user }),
  update: (user: string, key: string, old_label: string, new_label: string, is_new_label_must_added: boolean) =>
    gw.post('//customlabel/update', {
      updated_label: { key, old_label, new_label, is_new_label_must_added },
      user,
    }),
  delete: (user: string, key: string, label: string) =>
    gw.post('//customlabel/delete', { deleted_label: { key, label }, user }),
};

describe('/customlabel/* as the app calls them', () => {
  it('When a new user asks for their labels, then each asked key answers an empty list', async () => {
    await registered('cl-empty@example.org');
    const res = await app.get('cl-empty@example.org', ['mode', 'purpose']);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ mode: [], purpose: [] });
  });

  it('When labels are inserted, updated and deleted, then each answer is the key list e-mission gives', async () => {
    // e-mission's TestUserCustomLabel (emission/tests/coreTests/wrappers/TestUserCustomLabel.py), step by step.
    const user = 'cl-flow@example.org';
    await registered(user);
    expect((await app.insert(user, 'mode', 'mode1')).body).toEqual({ label: ['mode1'] });
    expect((await app.insert(user, 'purpose', 'purpose1')).body).toEqual({ label: ['purpose1'] });

    // A new label added by a trip's change comes with frequency 1, so it lists first.
    expect((await app.update(user, 'mode', '', 'mode2', true)).body).toEqual({ label: ['mode2', 'mode1'] });
    expect((await app.update(user, 'purpose', '', 'purpose2', true)).body).toEqual({
      label: ['purpose2', 'purpose1'],
    });

    expect((await app.delete(user, 'mode', 'mode2')).body).toEqual({ label: ['mode1'] });
    expect((await app.delete(user, 'purpose', 'purpose2')).body).toEqual({ label: ['purpose1'] });
    expect((await app.get(user, ['mode', 'purpose'])).body).toEqual({ mode: ['mode1'], purpose: ['purpose1'] });

    // A deleted label that was used comes back with its frequency when inserted again.
    expect((await app.insert(user, 'mode', 'mode2')).body).toEqual({ label: ['mode2', 'mode1'] });
  });

  it('When a trip changes from one label to another, then frequencies move and the list reorders', async () => {
    const user = 'cl-freq@example.org';
    await registered(user);
    await app.insert(user, 'mode', 'e_scooter');
    await app.insert(user, 'mode', 'gondola');
    // Ties (frequency 0 each) list in creation order.
    expect((await app.get(user, ['mode'])).body).toEqual({ mode: ['e_scooter', 'gondola'] });
    expect((await app.update(user, 'mode', 'e_scooter', 'gondola', false)).body).toEqual({
      label: ['gondola', 'e_scooter'],
    });
    // gondola 1, e_scooter -1. To a label the user does not have, not asked to be added: nothing is created,
    // the old label still loses one (gondola 0).
    expect((await app.update(user, 'mode', 'gondola', 'zeppelin', false)).body).toEqual({
      label: ['gondola', 'e_scooter'],
    });
    await app.update(user, 'mode', '', 'e_scooter', false);
    expect((await app.update(user, 'mode', '', 'e_scooter', false)).body).toEqual({
      label: ['e_scooter', 'gondola'],
    });
  });

  it('When the same insert or delete is sent twice, then the second answers the same list', async () => {
    const user = 'cl-twice@example.org';
    await registered(user);
    const first = await app.insert(user, 'purpose', 'choir practice');
    const second = await app.insert(user, 'purpose', 'choir practice');
    expect(second.body).toEqual(first.body);
    expect(second.body).toEqual({ label: ['choir practice'] });
    expect((await app.delete(user, 'purpose', 'choir practice')).body).toEqual({ label: [] });
    expect((await app.delete(user, 'purpose', 'choir practice')).body).toEqual({ label: [] });
    // Deleting a label the user never had is no error either (e-mission answers the list).
    expect((await app.delete(user, 'purpose', 'never_there')).status).toBe(200);
  });

  it("When two users keep labels, then neither ever sees the other's", async () => {
    await registered('cl-ann@example.org');
    await registered('cl-ben@example.org');
    await app.insert('cl-ann@example.org', 'mode', 'ann_bike');
    await app.insert('cl-ben@example.org', 'mode', 'ben_canoe');
    // Ben deleting Ann's label name touches only Ben's (empty) list.
    expect((await app.delete('cl-ben@example.org', 'mode', 'ann_bike')).body).toEqual({ label: ['ben_canoe'] });
    expect((await app.get('cl-ann@example.org', ['mode'])).body).toEqual({ mode: ['ann_bike'] });
    expect((await app.get('cl-ben@example.org', ['mode'])).body).toEqual({ mode: ['ben_canoe'] });
  });
});

describe('/customlabel/* refusals', () => {
  const user = 'cl-bad@example.org';
  beforeAll(async () => {
    await registered(user);
  });

  it('When no token or an unknown token is sent, then the answer is 401 or 403', async () => {
    expect((await gw.post('/customlabel/get', { keys: ['mode'] })).status).toBe(401);
    const res = await app.insert('cl-nobody@example.org', 'mode', 'x');
    expect(res.status).toBe(403);
  });

  it.each([
    ['control character', 'bus\u0007'],
    ['newline', 'line\nbreak'],
    ['DEL', 'a\u007fb'],
    ['C1 control', 'a\u0085b'],
    ['bidi override', 'abc\u202edcba'],
    ['lone surrogate', 'x\ud800'],
    ['empty', ''],
    ['blank', '   '],
    ['too long', 'a'.repeat(MAX_LABEL_CHARS + 1)],
  ])('When the label name is %s, then insert is a 400 and nothing is stored', async (_what, label) => {
    const res = await app.insert(user, 'mode', label);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect((await app.get(user, ['mode'])).body).toEqual({ mode: [] });
  });

  it('When a label has exactly the longest length, then it is accepted', async () => {
    const label = 'é'.repeat(MAX_LABEL_CHARS);
    expect((await app.insert(user, 'purpose', label)).body).toEqual({ label: [label] });
    expect((await app.delete(user, 'purpose', label)).body).toEqual({ label: [] });
  });

  it.each([
    ['no inserted_label', '/customlabel/insert', {}],
    ['inserted_label a string', '/customlabel/insert', { inserted_label: 'mode' }],
    ['inserted_label a list', '/customlabel/insert', { inserted_label: [{ key: 'mode', label: 'x' }] }],
    ['an unknown key', '/customlabel/insert', { inserted_label: { key: 'colour', label: 'x' } }],
    ['a prototype key', '/customlabel/insert', { inserted_label: { key: '__proto__', label: 'x' } }],
    ['a numeric label', '/customlabel/insert', { inserted_label: { key: 'mode', label: 7 } }],
    ['no deleted_label', '/customlabel/delete', { deleted_label: null }],
    ['a delete with no label', '/customlabel/delete', { deleted_label: { key: 'mode' } }],
    [
      'an update without is_new_label_must_added',
      '/customlabel/update',
      { updated_label: { key: 'mode', old_label: '', new_label: 'x' } },
    ],
    [
      'an update with a bad old_label',
      '/customlabel/update',
      { updated_label: { key: 'mode', old_label: 'a\u0000', new_label: 'x', is_new_label_must_added: true } },
    ],
    [
      'an update with an empty new_label',
      '/customlabel/update',
      { updated_label: { key: 'mode', old_label: '', new_label: '', is_new_label_must_added: true } },
    ],
    ['keys not a list', '/customlabel/get', { keys: 'mode' }],
    ['keys with an unknown key', '/customlabel/get', { keys: ['mode', 'toString'] }],
    ['keys with a non-string', '/customlabel/get', { keys: [{}] }],
    ['keys far too many', '/customlabel/get', { keys: Array.from({ length: 1000 }, () => 'mode') }],
  ])('When the body has %s, then the answer is a 400 naming the field', async (_what, path, body) => {
    const res = await gw.post(path, { ...body, user });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(typeof res.body.error.field).toBe('string');
  });

  it('When a GET is sent, then the answer is a 405', async () => {
    const res = await fetch(`${gw.url}/customlabel/get`);
    expect(res.status).toBe(405);
  });

  it(`When a user already keeps ${MAX_LABELS_PER_KEY} labels of a key, then a new one is a 400 and the list is unchanged`, async () => {
    const many = 'cl-many@example.org';
    await registered(many);
    for (let i = 0; i < MAX_LABELS_PER_KEY; i += 20) {
      await Promise.all(
        Array.from({ length: 20 }, (_, j) => app.insert(many, 'mode', `m${String(i + j).padStart(3, '0')}`)),
      );
    }
    const full = (await app.get(many, ['mode'])).body.mode as string[];
    expect(full).toHaveLength(MAX_LABELS_PER_KEY);
    const res = await app.insert(many, 'mode', 'one_too_many');
    expect(res.status).toBe(400);
    expect(res.body.error.limit).toBe(MAX_LABELS_PER_KEY);
    // Re-inserting a label already kept is no new label; another key has its own room.
    expect((await app.insert(many, 'mode', 'm000')).status).toBe(200);
    expect((await app.insert(many, 'purpose', 'p0')).body).toEqual({ label: ['p0'] });
    // Deleting an unused label frees its room.
    await app.delete(many, 'mode', 'm000');
    expect((await app.insert(many, 'mode', 'one_too_many')).status).toBe(200);
    expect(((await app.get(many, ['mode'])).body.mode as string[]).length).toBe(MAX_LABELS_PER_KEY);
  });
});
