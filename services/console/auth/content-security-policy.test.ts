import { describe, expect, it } from 'vitest';
import { consoleCspDirectives, tileSource } from './content-security-policy.js';

describe('tileSource', () => {
  it('When the tile URL is a Leaflet template, then its origin is allowed, {s} as a wildcard label', () => {
    expect(tileSource('https://{s}.tile.openstreetmap.org/{z}/{x}/{y}.png')).toBe('https://*.tile.openstreetmap.org');
    expect(tileSource('https://tiles.example.org:8443/{z}/{x}/{y}.png')).toBe('https://tiles.example.org:8443');
    expect(tileSource('http://127.0.0.1:8080/tiles/{z}/{x}/{y}.png')).toBe('http://127.0.0.1:8080');
  });

  it('When a placeholder is deeper in the host, then only the scheme can be said; no tiles, nothing', () => {
    expect(tileSource('https://tiles.{s}.example.org/{z}/{x}/{y}.png')).toBe('https:');
    expect(tileSource('')).toBeUndefined();
  });
});

describe('consoleCspDirectives', () => {
  it('When a tile server is configured, then images may come from it, and nothing else widens', () => {
    const directives = consoleCspDirectives({
      tileUrl: 'https://{s}.tile.openstreetmap.org/{z}/{x}/{y}.png',
      https: true,
    });
    expect(directives['imgSrc']).toEqual(["'self'", 'data:', 'https://*.tile.openstreetmap.org']);
    expect(directives['scriptSrc']).toEqual(["'self'"]);
    expect(directives['connectSrc']).toEqual(["'self'"]);
    expect(directives['upgradeInsecureRequests']).toEqual([]);
    expect(consoleCspDirectives({ tileUrl: '', https: false })['upgradeInsecureRequests']).toBeUndefined();
  });
});
