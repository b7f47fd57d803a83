import { OSMTransform } from 'osm-pbf-parser-node';
import { ValidationError } from '../../../../shared/errors/index.js';
import type { OsmElement, OsmMember } from './osm-elements.js';
import type { OsmTags } from './transit-stops.js';

/** Which tags to decode, per element type: all, none, or only these keys (decoding every tag costs the most). */
export interface PbfTagFilter {
  node: boolean | string[];
  way: boolean | string[];
  relation: boolean | string[];
}

/** One item as osm-pbf-parser-node gives it; the file's header block has no `type`. */
interface PbfItem {
  type?: 'node' | 'way' | 'relation';
  id: number;
  lat?: number;
  lon?: number;
  refs?: number[];
  members?: OsmMember[];
  tags?: OsmTags;
}

/**
 * Decodes an OSM PBF file (`.osm.pbf`, https://wiki.openstreetmap.org/wiki/PBF_Format) as it streams in, one
 * block (a few thousand elements) at a time, with osm-pbf-parser-node. Reading waits while a block is consumed.
 */
export async function* parseOsmPbf(
  chunks: AsyncIterable<Uint8Array>,
  withTags: PbfTagFilter | boolean = true,
): AsyncGenerator<OsmElement> {
  const decoder = new Decoder({ withTags, withInfo: false });
  const pump = feed(chunks, decoder);
  try {
    for await (const batch of decoder as AsyncIterable<PbfItem[]>) {
      for (const item of batch) {
        const element = toElement(item);
        if (element) yield element;
      }
    }
  } finally {
    // Stopped early, or failed: release the decoder so the feed ends and the source is closed.
    decoder.destroy();
    await pump;
  }
}

/** Writes the bytes into the decoder, waiting whenever its buffer is full, and ends it after the last chunk. */
async function feed(chunks: AsyncIterable<Uint8Array>, decoder: OSMTransform): Promise<void> {
  try {
    for await (const chunk of chunks) {
      if (decoder.destroyed) return;
      if (!decoder.write(chunk)) await drainedOrClosed(decoder);
    }
    decoder.end();
  } catch (err) {
    // A failing read ends the decoder with the read's own error, which reaches whoever iterates it.
    decoder.destroy(err as Error);
  }
}

type Done = (error?: Error | null) => void;

/**
 * osm-pbf-parser-node throws from inside the stream on bad input, where nothing would catch it (a throw during a
 * later, deferred write would even crash the process). This decoder hands such errors to the stream instead, as a
 * ValidationError.
 */
class Decoder extends OSMTransform {
  override _transform(chunk: Uint8Array, encoding: BufferEncoding, next: Done): void {
    try {
      super._transform(chunk, encoding, next);
    } catch (err) {
      next(malformed(err));
    }
  }

  override _flush(done: Done): void {
    try {
      super._flush(done);
    } catch (err) {
      done(malformed(err));
    }
  }
}

function malformed(cause: unknown): ValidationError {
  return new ValidationError('The OSM PBF file is malformed', { cause });
}

function drainedOrClosed(decoder: OSMTransform): Promise<void> {
  return new Promise((resolve) => {
    if (decoder.destroyed) return resolve();
    const done = (): void => {
      decoder.off('drain', done);
      decoder.off('close', done);
      resolve();
    };
    decoder.on('drain', done);
    decoder.on('close', done);
  });
}

function toElement(item: PbfItem): OsmElement | undefined {
  const tags = item.tags ?? {};
  switch (item.type) {
    case 'node':
      return { type: 'node', id: item.id, lat: item.lat ?? NaN, lon: item.lon ?? NaN, tags };
    case 'way':
      return { type: 'way', id: item.id, nodeRefs: item.refs ?? [], tags };
    case 'relation':
      return { type: 'relation', id: item.id, members: item.members ?? [], tags };
    default:
      return undefined;
  }
}
