import type { OsmElement, OsmMember } from '../../../services/trip-builder/domain/modes/osm-elements.js';

/**
 * Just enough of an OSM PBF writer (https://wiki.openstreetmap.org/wiki/PBF_Format) to turn a test fixture into a
 * `.osm.pbf` file: one header block and one data block holding plain (not dense) nodes, ways and relations, in
 * the order given. Compression is passed in (node:zlib's deflateSync in tests), keeping this module free of I/O.
 */
export function toOsmPbf(elements: readonly OsmElement[], deflate: (bytes: Uint8Array) => Uint8Array): Uint8Array {
  const header = new Proto().strings(4, ['OsmSchema-V0.6']).bytes();
  return concat([fileBlock('OSMHeader', header, deflate), fileBlock('OSMData', primitiveBlock(elements), deflate)]);
}

const MEMBER_TYPE: Record<OsmMember['type'], number> = { node: 0, way: 1, relation: 2 };
/** Coordinates in units of 100 nanodegrees, the format's default granularity. */
const toUnits = (degrees: number): number => Math.round(degrees * 1e7);

function primitiveBlock(elements: readonly OsmElement[]): Uint8Array {
  const strings = [''];
  const sid = (text: string): number => {
    const at = strings.indexOf(text);
    return at >= 0 ? at : strings.push(text) - 1;
  };
  const keysAndValues = (tags: Readonly<Record<string, string>>) => {
    const entries = Object.entries(tags);
    return { keys: entries.map(([k]) => sid(k)), vals: entries.map(([, v]) => sid(v)) };
  };
  const group = new Proto();
  for (const e of elements) {
    const { keys, vals } = keysAndValues(e.tags);
    const message = new Proto().packedUints(2, keys).packedUints(3, vals);
    if (e.type === 'node') {
      group.message(1, new Proto().sint(1, e.id).append(message).sint(8, toUnits(e.lat)).sint(9, toUnits(e.lon)));
    } else if (e.type === 'way') {
      group.message(3, new Proto().uint(1, e.id).append(message).packedSints(8, deltas(e.nodeRefs)));
    } else {
      const roles = e.members.map((m) => sid(m.role));
      const relation = new Proto().uint(1, e.id).append(message).packedUints(8, roles);
      relation.packedSints(9, deltas(e.members.map((m) => m.ref)));
      group.message(
        4,
        relation.packedUints(
          10,
          e.members.map((m) => MEMBER_TYPE[m.type]),
        ),
      );
    }
  }
  const table = new Proto().strings(1, strings);
  return new Proto().message(1, table).message(2, group).bytes();
}

function fileBlock(type: string, payload: Uint8Array, deflate: (bytes: Uint8Array) => Uint8Array): Uint8Array {
  const blob = new Proto().uint(2, payload.length).raw(3, deflate(payload)).bytes();
  const header = new Proto().strings(1, [type]).uint(3, blob.length).bytes();
  const length = new Uint8Array(4);
  new DataView(length.buffer).setUint32(0, header.length);
  return concat([length, header, blob]);
}

function deltas(values: readonly number[]): number[] {
  return values.map((v, i) => v - (i === 0 ? 0 : values[i - 1]!));
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** A protobuf message being written: varints, zigzag varints, length-delimited fields. */
class Proto {
  private readonly out: number[] = [];

  bytes(): Uint8Array {
    return Uint8Array.from(this.out);
  }

  uint(field: number, value: number): this {
    return this.key(field, 0).varint(value);
  }

  sint(field: number, value: number): this {
    return this.key(field, 0).varint(zigzag(value));
  }

  raw(field: number, bytes: Uint8Array): this {
    this.key(field, 2).varint(bytes.length);
    for (const b of bytes) this.out.push(b);
    return this;
  }

  strings(field: number, texts: readonly string[]): this {
    for (const text of texts) this.raw(field, new TextEncoder().encode(text));
    return this;
  }

  message(field: number, inner: Proto): this {
    return this.raw(field, inner.bytes());
  }

  append(other: Proto): this {
    this.out.push(...other.out);
    return this;
  }

  packedUints(field: number, values: readonly number[]): this {
    const packed = new Proto();
    for (const v of values) packed.varint(v);
    return values.length === 0 ? this : this.raw(field, packed.bytes());
  }

  packedSints(field: number, values: readonly number[]): this {
    return this.packedUints(field, values.map(zigzag));
  }

  private key(field: number, wireType: number): this {
    return this.varint(field * 8 + wireType);
  }

  private varint(value: number): this {
    let rest = value;
    while (rest >= 128) {
      this.out.push((rest % 128) + 128);
      rest = Math.floor(rest / 128);
    }
    this.out.push(rest);
    return this;
  }
}

function zigzag(value: number): number {
  return value >= 0 ? value * 2 : -value * 2 - 1;
}
