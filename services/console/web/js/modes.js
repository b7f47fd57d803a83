/** One colour per travel mode, the same on the day map and the summary charts. */
import { h } from './dom.js';

const palette = {
  WALKING: '#2e9e44',
  ON_FOOT: '#2e9e44',
  BICYCLING: '#f28c00',
  IN_VEHICLE: '#d62d20',
  CAR: '#d62d20',
  BUS: '#8e44ad',
  TRAIN: '#1f6fd1',
  SUBWAY: '#1f6fd1',
  LIGHT_RAIL: '#1f6fd1',
  TRAM: '#1f6fd1',
  UNKNOWN: '#8a8f98',
};

/** The legend's entries: one per colour. */
const legendEntries = [
  ['walking', '#2e9e44'],
  ['bicycling', '#f28c00'],
  ['car', '#d62d20'],
  ['bus', '#8e44ad'],
  ['train, subway, tram', '#1f6fd1'],
  ['unknown', '#8a8f98'],
];

export function colorFor(mode) {
  const key = String(mode ?? 'UNKNOWN').toUpperCase();
  if (palette[key]) return palette[key];
  let hash = 0;
  for (const ch of key) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  return `hsl(${hash % 360}, 65%, 45%)`;
}

export function swatch(mode) {
  const node = h('span', { class: 'swatch', 'aria-hidden': 'true' });
  node.style.background = colorFor(mode);
  return node;
}

/** A legend of the fixed colours, plus `extraModes` (modes seen outside the palette). */
export function legend(extraModes = []) {
  const extras = [...new Set(extraModes.map((m) => String(m).toUpperCase()))].filter((m) => !palette[m]);
  const entries = [...legendEntries.map(([label, color]) => [label, color]), ...extras.map((m) => [m, colorFor(m)])];
  return entries.map(([label, color]) => {
    const sw = h('span', { class: 'swatch', 'aria-hidden': 'true' });
    sw.style.background = color;
    return h('span', {}, sw, label.toLowerCase());
  });
}
