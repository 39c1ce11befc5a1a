/**
 * Per-blob parse facts (seam (a) of the cache: `parseMarkdown`, one doc's bytes → its
 * facts). A doc is known by its git blob id, hashed here from the bytes the scan read (so a
 * doc edited, untracked or checked out through a filter is known by what is on disk). The
 * facts of every doc a scan parsed are kept together in one entry, named by the digest of
 * the settings and the blob ids; a pointer per work tree names the last one, which the next
 * scan starts from. Facts that depend on other files (resolution, sites) are never kept.
 */
import { createHash } from 'node:crypto';
import { type ParsedDoc, parseMarkdown } from '../markdown.js';
import { decodeDoc, type EncodedDoc, encodeDoc } from './parsed-doc-codec.js';
import { type CacheStore, ENTRY_NAME } from './store.js';

/** A doc as read: its text and the bytes it was decoded from. */
export interface ReadText {
  text: string;
  bytes: Buffer;
}

/** git's blob id of `bytes` (SHA-1 of `blob <size>\0` and the bytes). */
export function blobId(bytes: Buffer): string {
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

export class ParseCache {
  private readonly known = new Map<string, unknown>();
  private readonly used = new Map<string, EncodedDoc>();
  private missed = 0;
  private hit = 0;

  private loaded = false;

  constructor(
    private readonly store: CacheStore,
    private readonly settings: string,
    /** The pointer entry's name (one per work tree). */
    private readonly pointer: string,
  ) {}

  /** Reads the last scan's facts, on first use: after the history pass has started, not before. */
  private load(): void {
    if (this.loaded) return;
    this.loaded = true;
    const latest = this.store.read(this.pointer);
    const bundle = isObject(latest) && typeof latest['bundle'] === 'string' ? latest['bundle'] : undefined;
    if (bundle === undefined || !ENTRY_NAME.test(bundle)) return;
    const value = this.store.read(bundle);
    if (!isObject(value) || value['settings'] !== this.settings || !isObject(value['docs'])) return;
    for (const [oid, doc] of Object.entries(value['docs']))
      if (/^[0-9a-f]{40}$/.test(oid)) this.known.set(oid, doc);
  }

  /** How many docs came from the cache and how many were parsed. */
  get counts(): { hits: number; misses: number } {
    return { hits: this.hit, misses: this.missed };
  }

  /** The facts of one doc: from the cache, else parsed (and kept). */
  parse(read: ReadText): ParsedDoc {
    const oid = blobId(read.bytes);
    return this.lookUp(oid, read.text) ?? this.keep(oid, parseMarkdown(read.text));
  }

  /**
   * `parse` for a text with no bytes read (a doc after an edit made in memory): known by the
   * blob id of its UTF-8 bytes, which decode to the very text unless it starts with a BOM
   * (the scan drops one): such a text is parsed every time.
   */
  parseText(text: string): ParsedDoc {
    return text.charCodeAt(0) === 0xfeff
      ? parseMarkdown(text)
      : this.parse({ text, bytes: Buffer.from(text, 'utf8') });
  }

  /**
   * One doc's facts from the cache, by the blob id of its bytes; undefined facts when they
   * are not cached (`keep` them, with this id, once parsed).
   */
  lookUpRead(read: ReadText): { oid: string; parsed: ParsedDoc | undefined } {
    const oid = blobId(read.bytes);
    return { oid, parsed: this.lookUp(oid, read.text) };
  }

  /** Writes the facts of this scan's docs, when some were parsed afresh. */
  save(): void {
    const missed = this.missed;
    const used = [...this.used];
    // Let go of every fact held for the cache: the report is built next, and the peak is there.
    this.missed = 0;
    this.known.clear();
    this.used.clear();
    if (missed === 0) return;
    used.sort((a, b) => (a[0] < b[0] ? -1 : 1));
    const name = createHash('sha256')
      .update(`parse\0${this.settings}\0${used.map(([oid]) => oid).join('\n')}`)
      .digest('hex');
    const docs: Record<string, EncodedDoc> = {};
    for (const [oid, doc] of used) docs[oid] = doc;
    if (this.store.write(name, { settings: this.settings, docs }))
      this.store.write(this.pointer, { bundle: name });
  }

  private lookUp(oid: string, text: string): ParsedDoc | undefined {
    this.load();
    const raw = this.known.get(oid);
    if (raw === undefined) return undefined;
    const parsed = decodeDoc(raw, text);
    if (parsed === undefined) {
      this.known.delete(oid);
      return undefined;
    }
    this.hit++;
    this.used.set(oid, raw as EncodedDoc);
    return parsed;
  }

  /** Keeps the facts of a doc parsed afresh, under its blob id; returns them. */
  keep(oid: string, parsed: ParsedDoc): ParsedDoc {
    // A doc whose facts JSON cannot hold as they are is parsed every time, and is no reason to write.
    const encoded = encodeDoc(parsed);
    if (encoded !== undefined) {
      this.missed++;
      this.used.set(oid, encoded);
    }
    return parsed;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
