import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * A usearch index saved beside the data: `<base>.usearch` (usearch's own format), `<base>.keys` (the
 * chunk id of every vector, ascending, as float64, then the index of its document in the meta's list,
 * as uint32) and `<base>.json` (the meta, written last: what the index was built for and both files'
 * sizes and SHA-1). A file whose meta does not match, or whose bytes do not hash to it, is never
 * handed to usearch's native loader: the index is rebuilt from the database instead.
 */
export interface SavedIndexMeta {
  format: 1;
  dimensions: number;
  model: string;
  /** The database the vectors came from (SQLite, or PostgreSQL's host and database name). */
  database: string;
  /** The HNSW parameters and quantization the file was built with. */
  layout: string;
  count: number;
  /** The highest chunk id held when saved (the watermark: newer rows are added at load). */
  maxId: number;
  savedAt: number;
  documents: string[];
  indexBytes: number;
  indexSha1: string;
  keysBytes: number;
  keysSha1: string;
}

/** What a saved index must have been built for to be loaded. */
interface SavedIndexIdentity {
  model: string;
  database: string;
  layout: string;
}

export interface SavedKeys {
  meta: SavedIndexMeta;
  indexPath: string;
  /** Chunk ids, ascending. */
  keys: Float64Array;
  /** For each key, its document's index in `meta.documents`. */
  documentOf: Uint32Array;
}

async function sha1File(path: string): Promise<string> {
  const hash = createHash('sha1');
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * One replica's files. Replicas may share a data dir: each takes the first slot no live replica
 * holds (`replica-<n>.lock` names the holder's pid and id), so a restarted replica finds its own
 * index again, or a free one.
 */
export class VectorIndexFiles {
  private constructor(
    readonly base: string,
    private readonly lock: string,
    private readonly owner: string,
  ) {}

  static async claim(dir: string, owner: string): Promise<VectorIndexFiles> {
    await mkdir(dir, { recursive: true });
    for (let slot = 0; ; slot++) {
      const lock = join(dir, `replica-${slot}.lock`);
      const content = `${process.pid} ${owner}`;
      try {
        const handle = await open(lock, 'wx');
        await handle.writeFile(content);
        await handle.close();
        return new VectorIndexFiles(join(dir, `replica-${slot}`), lock, owner);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const [pid, holder] = (await readFile(lock, 'utf8').catch(() => '')).split(' ');
      if (!holderAlive(Number(pid), holder)) {
        // Left by a replica that has gone: taken over (a race with another starting replica loses on the re-read).
        await writeFile(lock, content);
        if ((await readFile(lock, 'utf8').catch(() => '')) === content) return new VectorIndexFiles(join(dir, `replica-${slot}`), lock, owner);
      }
    }
  }

  async release(): Promise<void> {
    if ((await readFile(this.lock, 'utf8').catch(() => '')) === `${process.pid} ${this.owner}`) await rm(this.lock, { force: true });
  }

  /** The saved keys and the usearch file's path when they match `identity` and their hashes; why not otherwise. */
  async read(identity: SavedIndexIdentity): Promise<SavedKeys | string> {
    let meta: SavedIndexMeta;
    try {
      meta = JSON.parse(await readFile(`${this.base}.json`, 'utf8')) as SavedIndexMeta;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'none saved' : `unreadable meta (${(error as Error).message})`;
    }
    if (meta.format !== 1 || !Array.isArray(meta.documents) || !Number.isInteger(meta.dimensions) || meta.dimensions < 1) return 'unknown meta format';
    if (meta.model !== identity.model) return `saved for model ${meta.model}, not ${identity.model}`;
    if (meta.database !== identity.database) return 'saved for another database';
    if (meta.layout !== identity.layout) return `saved with layout ${meta.layout}, not ${identity.layout}`;
    const indexPath = `${this.base}.usearch`;
    const keysPath = `${this.base}.keys`;
    try {
      if ((await stat(indexPath)).size !== meta.indexBytes || (await stat(keysPath)).size !== meta.keysBytes) return 'file sizes differ from the meta';
      if ((await sha1File(indexPath)) !== meta.indexSha1) return 'index file checksum differs';
      const bytes = await readFile(keysPath);
      if (createHash('sha1').update(bytes).digest('hex') !== meta.keysSha1 || bytes.length !== meta.count * 12) return 'keys file checksum differs';
      const copy = Uint8Array.from(bytes).buffer;
      const keys = new Float64Array(copy, 0, meta.count);
      const documentOf = new Uint32Array(copy, meta.count * 8, meta.count);
      return { meta, indexPath, keys, documentOf };
    } catch (error) {
      return `unreadable (${(error as Error).message})`;
    }
  }

  /**
   * Writes the index (`save` writes usearch's file synchronously, so `keysOf` is the same instant's)
   * and its keys under temporary names, then renames them into place, the meta last.
   */
  async write(save: (path: string) => void, keysOf: Map<string, bigint[]>, identity: SavedIndexIdentity, dimensions: number): Promise<number> {
    const tmp = `${this.base}.${process.pid}.tmp`;
    save(`${tmp}.usearch`);
    const documents = [...keysOf.keys()];
    const { keys, buffer } = sortedKeys(keysOf, documents);
    const count = keys.length;
    const keyBytes = Buffer.from(buffer);
    try {
      await writeFile(`${tmp}.keys`, keyBytes);
      const meta: SavedIndexMeta = {
        format: 1,
        dimensions,
        ...identity,
        count,
        maxId: count ? keys[count - 1] : 0,
        savedAt: Date.now(),
        documents,
        indexBytes: (await stat(`${tmp}.usearch`)).size,
        indexSha1: await sha1File(`${tmp}.usearch`),
        keysBytes: keyBytes.length,
        keysSha1: createHash('sha1').update(keyBytes).digest('hex'),
      };
      await writeFile(`${tmp}.json`, JSON.stringify(meta));
      await rename(`${tmp}.usearch`, `${this.base}.usearch`);
      await rename(`${tmp}.keys`, `${this.base}.keys`);
      await rename(`${tmp}.json`, `${this.base}.json`);
      return count;
    } finally {
      for (const ext of ['usearch', 'keys', 'json']) await rm(`${tmp}.${ext}`, { force: true });
    }
  }
}

/**
 * Every key with its document's index, ascending by key. A million keys sort in a typed array (each key
 * and its document packed into one float64 while both fit) rather than as a million small arrays: a save
 * runs on the event loop.
 */
function sortedKeys(keysOf: Map<string, bigint[]>, documents: string[]): { keys: Float64Array; documentOf: Uint32Array; buffer: ArrayBuffer } {
  let count = 0;
  let maxKey = 0;
  for (const list of keysOf.values()) {
    count += list.length;
    for (const key of list) if (Number(key) > maxKey) maxKey = Number(key);
  }
  const buffer = new ArrayBuffer(count * 12);
  const keys = new Float64Array(buffer, 0, count);
  const documentOf = new Uint32Array(buffer, count * 8, count);
  const docBits = Math.max(1, Math.ceil(Math.log2(documents.length + 1)));
  if (Math.log2(maxKey + 1) + docBits <= 52) {
    const scale = 2 ** docBits;
    const packed = new Float64Array(count);
    let n = 0;
    documents.forEach((doc, i) => {
      for (const key of keysOf.get(doc)!) packed[n++] = Number(key) * scale + i;
    });
    packed.sort();
    for (let j = 0; j < count; j++) {
      const doc = packed[j] % scale;
      documentOf[j] = doc;
      keys[j] = (packed[j] - doc) / scale;
    }
  } else {
    const pairs: [number, number][] = [];
    documents.forEach((doc, i) => {
      for (const key of keysOf.get(doc)!) pairs.push([Number(key), i]);
    });
    pairs.sort((a, b) => a[0] - b[0]);
    pairs.forEach(([key, doc], j) => {
      keys[j] = key;
      documentOf[j] = doc;
    });
  }
  return { keys, documentOf, buffer };
}

function holderAlive(pid: number, holder: string | undefined): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  // Another replica inside this process (tests start several) holds it until it releases it.
  if (pid === process.pid) return !!holder && liveOwners.has(holder);
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Owners in this process that hold a slot. */
export const liveOwners = new Set<string>();

/** A PostgreSQL database named without its credentials: host, port and database name. */
export function databaseIdentity(url: string): string {
  try {
    const parsed = new URL(url);
    return `postgres://${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
  } catch {
    return 'postgres';
  }
}
