/**
 * Stable 24-hex ids in the shape of MongoDB ObjectIds, which the phone app reads as `{"$oid": …}`. Derived from
 * what the object is (user, kind, time), so a rebuild of the same trip gives it the same id and the phone's cached
 * labels stay attached.
 */
export function objectId(...parts: (string | number)[]): string {
  const text = parts.join('|');
  let out = '';
  for (const seed of [0x811c9dc5, 0x01000193, 0x9e3779b9]) {
    let h = seed >>> 0;
    for (let i = 0; i < text.length; i++) {
      h ^= text.charCodeAt(i);
      h = Math.imul(h, 0x01000193) >>> 0;
      h = (h ^ (h >>> 13)) >>> 0;
    }
    out += h.toString(16).padStart(8, '0');
  }
  return out;
}
