import { SaxesParser, type SaxesTagPlain } from 'saxes';
import { ValidationError } from '../../../../shared/errors/index.js';
import type { OsmElement, OsmMember } from './osm-elements.js';

/** The element being read, with the lists its child tags fill. */
interface OpenElement {
  element: OsmElement;
  tags: Record<string, string>;
  nodeRefs: number[];
  members: OsmMember[];
  /** Skipped on close: deleted in a JOSM file or in a history dump. */
  deleted: boolean;
}

/**
 * Decodes OSM XML (`.osm`, https://wiki.openstreetmap.org/wiki/OSM_XML) as it streams in, one element at a time:
 * memory holds one chunk's worth of elements, however large the file.
 */
export async function* parseOsmXml(chunks: AsyncIterable<Uint8Array | string>): AsyncGenerator<OsmElement> {
  const parser = new SaxesParser();
  const decoder = new TextDecoder('utf-8');
  const done: OsmElement[] = [];
  let open: OpenElement | undefined;

  parser.on('opentag', (tag: SaxesTagPlain) => {
    const a = tag.attributes;
    switch (tag.name) {
      case 'node':
      case 'way':
      case 'relation':
        open = startElement(tag.name, a);
        break;
      case 'tag':
        if (open && a.k !== undefined) open.tags[a.k] = a.v ?? '';
        break;
      case 'nd':
        open?.nodeRefs.push(Number(a.ref));
        break;
      case 'member':
        if (isMemberType(a.type)) open?.members.push({ type: a.type, ref: Number(a.ref), role: a.role ?? '' });
        break;
    }
  });
  parser.on('closetag', (tag: SaxesTagPlain) => {
    if (open && tag.name === open.element.type) {
      if (!open.deleted) done.push(open.element);
      open = undefined;
    }
  });

  // Only the parser's complaints mean a malformed file; a failing read keeps its own error.
  const feed = (text: string | null): void => {
    try {
      if (text === null) parser.close();
      else parser.write(text);
    } catch (err) {
      throw new ValidationError('The OSM XML file is not well formed', { cause: err });
    }
  };
  for await (const chunk of chunks) {
    feed(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
    yield* done.splice(0);
  }
  feed(decoder.decode());
  feed(null);
  yield* done.splice(0);
}

function startElement(name: 'node' | 'way' | 'relation', a: Record<string, string>): OpenElement {
  const id = Number(a.id);
  const tags: Record<string, string> = {};
  const nodeRefs: number[] = [];
  const members: OsmMember[] = [];
  const element: OsmElement =
    name === 'node'
      ? { type: 'node', id, lat: Number(a.lat), lon: Number(a.lon), tags }
      : name === 'way'
        ? { type: 'way', id, nodeRefs, tags }
        : { type: 'relation', id, members, tags };
  return { element, tags, nodeRefs, members, deleted: a.visible === 'false' || a.action === 'delete' };
}

function isMemberType(type: string | undefined): type is OsmMember['type'] {
  return type === 'node' || type === 'way' || type === 'relation';
}
