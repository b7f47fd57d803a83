/** The day page's Leaflet map: sections as polylines coloured by mode, places, stops, and raw points on demand. */
import * as L from 'leaflet/dist/leaflet-src.esm.js';
import { colorFor } from './modes.js';

/** Leaflet puts a tooltip's string in as HTML: what it shows goes in as a text node. */
const text = (value) => document.createTextNode(String(value));

const latLng = ([lon, lat]) => [lat, lon];

function attributionFor(tileUrl) {
  if (/openstreetmap\.org/.test(tileUrl)) return '&copy; OpenStreetMap contributors';
  try {
    return new URL(tileUrl.replace(/\{[a-z]\}/g, 'a')).hostname;
  } catch {
    return '';
  }
}

/**
 * createDayMap(element, tileUrl, onSelect) → { draw(trips), select(tripId), togglePoints(sectionId, mode, points) }.
 * Without a tile URL the map has a plain background (and works offline).
 */
export function createDayMap(element, tileUrl, onSelect) {
  const map = L.map(element, { worldCopyJump: true });
  if (tileUrl) L.tileLayer(tileUrl, { maxZoom: 19, attribution: attributionFor(tileUrl) }).addTo(map);
  const trips = new Map(); // tripId → { group, lines }
  const points = new Map(); // sectionId → layer
  const all = L.featureGroup().addTo(map);
  let selected = null;

  function drawTrip(trip) {
    const group = L.featureGroup();
    const lines = [];
    const pick = () => onSelect(trip.tripId);
    for (const section of trip.sections) {
      if (section.coordinates.length < 2) continue;
      const line = L.polyline(section.coordinates.map(latLng), {
        color: colorFor(section.mode),
        weight: 4,
        opacity: 0.85,
        className: 'trip-line',
      });
      line.bindTooltip(text(`${section.mode} · ${(section.distance / 1000).toFixed(2)} km`), { sticky: true });
      lines.push(line.on('click', pick).addTo(group));
    }
    if (lines.length === 0 && trip.startPlace && trip.endPlace) {
      const gap = L.polyline([latLng(trip.startPlace), latLng(trip.endPlace)], {
        color: colorFor('UNKNOWN'),
        weight: 3,
        dashArray: '6 6',
        className: 'trip-line untracked',
      });
      lines.push(gap.on('click', pick).addTo(group));
    }
    for (const stop of trip.stops) {
      L.circleMarker(latLng(stop), { radius: 3, color: '#333', weight: 1, fillColor: '#fff', fillOpacity: 1 })
        .bindTooltip(text('stop'))
        .addTo(group);
    }
    const place = (coords, fill, label) =>
      L.circleMarker(latLng(coords), { radius: 6, color: '#222', weight: 2, fillColor: fill, fillOpacity: 1 })
        .bindTooltip(text(label))
        .on('click', pick)
        .addTo(group);
    if (trip.startPlace) place(trip.startPlace, '#ffffff', `start ${trip.startFmtTime}`);
    if (trip.endPlace) place(trip.endPlace, '#222222', `end ${trip.endFmtTime}`);
    group.addTo(all);
    trips.set(trip.tripId, { group, lines });
    return !trip.untracked && lines.length > 0;
  }

  /** Draws the day, fits the map to it; returns the number of trips (untracked periods aside) drawn with a line. */
  function draw(dayTrips) {
    const drawn = dayTrips.map(drawTrip).filter(Boolean).length;
    const bounds = all.getBounds();
    if (bounds.isValid()) map.fitBounds(bounds, { padding: [24, 24], maxZoom: 17 });
    else map.setView([20, 0], 2);
    return drawn;
  }

  function select(tripId) {
    selected = selected === tripId ? null : tripId;
    for (const [id, { group, lines }] of trips) {
      const on = id === selected;
      for (const line of lines) line.setStyle({ weight: on ? 7 : 4, opacity: selected === null || on ? 0.85 : 0.3 });
      if (on) group.bringToFront();
    }
    const target = selected === null ? all : trips.get(selected)?.group;
    const bounds = target?.getBounds();
    if (bounds?.isValid()) map.fitBounds(bounds, { padding: [32, 32], maxZoom: 17 });
    return selected;
  }

  /** Shows the raw points of a section (or hides them when shown already); returns whether they are shown. */
  function togglePoints(sectionId, mode, pts) {
    if (points.has(sectionId)) {
      points.get(sectionId).remove();
      points.delete(sectionId);
      return false;
    }
    const layer = L.featureGroup(
      pts.map((p) =>
        L.circleMarker([p.lat, p.lon], {
          radius: 3,
          weight: 1,
          color: '#000',
          fillColor: colorFor(mode),
          fillOpacity: 0.9,
          className: 'raw-point',
        }).bindTooltip(text(`${new Date(p.ts * 1000).toISOString()} ±${p.accuracy ?? '?'} m`)),
      ),
    ).addTo(map);
    points.set(sectionId, layer);
    if (layer.getBounds().isValid()) map.fitBounds(layer.getBounds(), { padding: [32, 32], maxZoom: 18 });
    return true;
  }

  return { draw, select, togglePoints };
}
