import { describe, expect, it } from 'vitest';
import { routeGroup, USER_CALL_REFUSALS } from './phone-route.js';
import { UserBody } from './phone-schemas.js';
import { userBodyCall } from './user-body-call.js';

const answers = { 200: { description: 'Read' } };

describe('a call whose body only says who calls', () => {
  it('When a call declares no refusals, then it is a POST of UserBody, with its example, refused as any user call', () => {
    const call = userBodyCall({ path: '/profile/get', summary: 'The profile', answers });
    expect(call).toMatchObject({ method: 'post', body: UserBody, refusals: USER_CALL_REFUSALS });
    expect(UserBody.safeParse(call.example).success).toBe(true);
  });

  it('When a call declares its refusals, then those are its refusals, in place of the default', () => {
    const refusals = { ...USER_CALL_REFUSALS, 429: 'Too many calls' };
    expect(userBodyCall({ path: '/profile/delete', summary: 'Delete', answers, refusals }).refusals).toBe(refusals);
  });
});

describe('a group of routes', () => {
  it('When routes are gathered under a tag, then each carries it, in the order declared', () => {
    const routes = routeGroup('diary', [
      userBodyCall({ path: '/a', summary: 'A', answers }),
      userBodyCall({ path: '/b', summary: 'B', answers }),
    ]);
    expect(routes.map((r) => [r.path, r.tag])).toEqual([
      ['/a', 'diary'],
      ['/b', 'diary'],
    ]);
  });
});
