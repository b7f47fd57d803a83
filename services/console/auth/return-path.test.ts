import { describe, expect, it } from 'vitest';
import { safeReturnPath } from './return-path.js';

describe('safeReturnPath', () => {
  it('When next is a console path, then it is kept with its query', () => {
    expect(safeReturnPath('/admin/day.html?user=u1&date=2024-05-01')).toBe('/admin/day.html?user=u1&date=2024-05-01');
    expect(safeReturnPath('/admin/')).toBe('/admin/');
  });

  it('When next would leave the console or loop through the login, then it falls back to /admin/', () => {
    for (const next of [
      undefined,
      ['/admin/a', '/admin/b'],
      '',
      'admin/x',
      '//evil.example/admin/',
      '/\\evil.example/admin/',
      '/\t/evil.example/admin/',
      'https://evil.example/admin/',
      'javascript:alert(1)',
      '/admin/../api/me',
      '/elsewhere',
      '/admin',
      '/admin/login?next=/admin/',
      '/admin/callback?code=x',
    ]) {
      expect(safeReturnPath(next), String(next)).toBe('/admin/');
    }
  });
});
