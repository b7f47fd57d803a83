import { describe, expect, it } from 'vitest';
import { keyedUserId } from './keyed-user-id.js';

describe('keyedUserId', () => {
  const id = '88efca95632042bc94d47e53a600fe0c';

  it('is the HMAC-SHA256 of the id, cut to 128 bits and shaped like a uuid', () => {
    // `echo -n 88efca95632042bc94d47e53a600fe0c | openssl dgst -sha256 -hmac s3cret`
    expect(keyedUserId('s3cret', id)).toBe('288b61c0-bed8-5144-2020-b1db71d9bbb1');
  });

  it('is stable for a secret, differs between secrets and users', () => {
    expect(keyedUserId('a', id)).toBe(keyedUserId('a', id));
    expect(keyedUserId('a', id)).not.toBe(keyedUserId('b', id));
    expect(keyedUserId('a', id)).not.toBe(keyedUserId('a', 'b0d58520c6944415ac0409ec831edd4d'));
    expect(keyedUserId('a', id)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });

  it('gives a uuid one pseudonym however it is spelled', () => {
    expect(keyedUserId('a', '88EFCA95-6320-42BC-94D4-7E53A600FE0C')).toBe(keyedUserId('a', id));
  });

  it('refuses an empty secret', () => {
    expect(() => keyedUserId('', id)).toThrow(/secret/);
  });
});
