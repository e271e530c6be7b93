// A bounded cache of built asset graphs (objects for the pages, serialized bytes for the API),
// so a read that was already answered costs one small stamp query instead of reading and
// assembling a whole project again. It can never be stale and never leak, by construction of
// its keys (api/graph/reads.ts builds them):
//   - what the answer was built FROM: the stamp of the stored rows it read (graph markers,
//     script versions, usage rows, producer lineage; see repo/graph-read.ts), or for a pinned
//     read the marker of its one graph. Any replace, prune, deploy or delete changes it.
//   - what was ASKED: folder, kinds, named version, fields (shape or full);
//   - everything the caller's redaction depends on (principalKey below), so two callers who
//     may see different things never share an entry (and members alike do share one).
// The API's ETag is a digest of the answer's bytes, not of the key: it moves only when what
// this caller may see moves.
// An entry is stored only when the stamp read after the build equals the one read before, so a
// write that lands during a build cannot be cached under the older stamp. Least recently used
// entries are dropped past a byte budget (TRIBUTARY_GRAPH_CACHE_MB, default 192; 0 disables).
// Concurrent misses of one key share one build (200 viewers opening one run page build once).
// Some answers also have a second level in the database (`persisted` below), so the first read
// after a restart is a lookup instead of a rebuild.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import type { Principal } from './access';
import type { Database } from './db';
import { readDerived, writeDerived } from './repo/derived-cache';

export interface CacheStats {
	entries: number;
	bytes: number;
	maxBytes: number;
	hits: number;
	misses: number;
	/** Builds whose stamp moved underneath them: answered, not stored. */
	unstable: number;
	evictions: number;
}

interface Entry<V> {
	value: V;
	bytes: number;
}

/** A least-recently-used map bounded by the bytes its entries declare. */
export class ByteLru<V> {
	private readonly map = new Map<string, Entry<V>>();
	private total = 0;
	private readonly pending = new Map<string, Promise<V>>();
	readonly stats: CacheStats;

	/** An entry larger than `maxEntryBytes` (default half the budget) is answered but never stored. */
	constructor(
		readonly maxBytes: number,
		readonly maxEntryBytes = Math.floor(maxBytes / 2)
	) {
		this.stats = { entries: 0, bytes: 0, maxBytes, hits: 0, misses: 0, unstable: 0, evictions: 0 };
	}

	get(key: string): V | undefined {
		const e = this.map.get(key);
		if (!e) return undefined;
		// Re-insert: Map iteration order is insertion order, so the first key is the least recent.
		this.map.delete(key);
		this.map.set(key, e);
		return e.value;
	}

	has(key: string): boolean {
		return this.map.has(key);
	}

	set(key: string, value: V, bytes: number): boolean {
		this.delete(key);
		if (bytes > this.maxEntryBytes || bytes > this.maxBytes) return false;
		this.map.set(key, { value, bytes });
		this.total += bytes;
		while (this.total > this.maxBytes) {
			const oldest = this.map.keys().next().value as string;
			this.delete(oldest);
			this.stats.evictions++;
		}
		this.sync();
		return true;
	}

	delete(key: string): void {
		const e = this.map.get(key);
		if (!e) return;
		this.map.delete(key);
		this.total -= e.bytes;
		this.sync();
	}

	clear(): void {
		this.map.clear();
		this.total = 0;
		this.sync();
	}

	private sync(): void {
		this.stats.entries = this.map.size;
		this.stats.bytes = this.total;
	}

	/**
	 * The cached value of `key`, or one build of it shared by every concurrent caller. The value
	 * is stored (with `sizeOf(value)` bytes) only when `stillValid()` says the inputs did not
	 * move during the build.
	 */
	async getOrBuild(key: string, build: () => Promise<V>, sizeOf: (v: V) => number, stillValid: () => Promise<boolean>): Promise<V> {
		const hit = this.get(key);
		if (hit !== undefined) {
			this.stats.hits++;
			return hit;
		}
		const inflight = this.pending.get(key);
		if (inflight) {
			this.stats.hits++;
			return inflight;
		}
		this.stats.misses++;
		const p = (async () => {
			const v = await build();
			if (this.maxBytes > 0) {
				if (await stillValid()) this.set(key, v, sizeOf(v));
				else this.stats.unstable++;
			}
			return v;
		})();
		this.pending.set(key, p);
		try {
			return await p;
		} finally {
			this.pending.delete(key);
		}
	}
}

const DEFAULT_MB = 192;

function budgetBytes(): number {
	const raw = process.env.TRIBUTARY_GRAPH_CACHE_MB;
	const mb = raw === undefined || raw === '' ? DEFAULT_MB : Number(raw);
	return Number.isFinite(mb) && mb > 0 ? Math.floor(mb * 1024 * 1024) : 0;
}

// One cache per opened database: tests open several in one process, and an entry of one must
// never answer for another.
const caches = new WeakMap<object, ByteLru<unknown>>();

export function graphCacheOf(db: object): ByteLru<unknown> {
	let c = caches.get(db);
	if (!c) caches.set(db, (c = new ByteLru<unknown>(budgetBytes())));
	return c;
}

/**
 * Everything of a principal that the graph reads' gates look at (canReadPath, mayReadPath,
 * readablePathFilter, scopePathFilter): admin or not, the username (its own `u/` paths), the
 * folders it reads or writes, and its token scopes. Equal keys are decided identically by every
 * gate; groups matter only through the folders they grant.
 */
export function principalKey(p: Principal | null, opts: { ownPaths?: boolean } = {}): string {
	if (p === null) return 'link';
	const scopes = p.scopes === null ? null : [...p.scopes].sort();
	if (p.isAdmin) return JSON.stringify(['admin', p.workspace, scopes]);
	const folders = [...new Set([...p.readFolders, ...p.writeFolders])].sort();
	// `ownPaths: false` (the workspace holds no script under `u/<username>/`, not even a deleted
	// one): the username decides nothing, so members alike share one entry.
	return JSON.stringify(['member', p.workspace, opts.ownPaths === false ? null : p.username, folders, scopes]);
}

/** A short, fixed-length name of a cache key (also the ETag's body). */
export function digestKey(parts: unknown): string {
	return createHash('sha256').update(JSON.stringify(parts)).digest('base64url');
}

/** The serialized answer of the API routes: the exact bytes sent, and their ETag. */
export interface GraphBody {
	bytes: Uint8Array;
	etag: string;
}

/** JSON as the API sends it (jsonSafe's bigint replacer), as bytes. */
export function serialize(data: unknown): Uint8Array {
	return Buffer.from(JSON.stringify(data, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)));
}

/** Whether an If-None-Match header names this ETag (a list, weak forms and `*` included). */
export function etagMatches(header: string | null, etag: string): boolean {
	if (!header) return false;
	const bare = etag.replace(/^W\//, '');
	return header.split(',').some((t) => {
		const v = t.trim();
		return v === '*' || v.replace(/^W\//, '') === bare;
	});
}

/** The answer of a cached graph route: 304 when the caller already has these bytes, else them. */
export function graphResponse(body: GraphBody, ifNoneMatch: string | null): Response {
	const headers = { etag: body.etag, 'cache-control': 'private, no-cache', vary: 'cookie, authorization, x-view-token' };
	if (etagMatches(ifNoneMatch, body.etag)) return new Response(null, { status: 304, headers });
	return new Response(body.bytes as Uint8Array<ArrayBuffer>, { headers: { ...headers, 'content-type': 'application/json' } });
}

// ─── The second level: bodies kept across restarts ───────────────────────────────────────────

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);
const DEFAULT_DERIVED_MB = 256;

/** The database rows' budget (TRIBUTARY_DERIVED_CACHE_MB, default 256; 0 disables the level). */
export function derivedBudgetBytes(): number {
	const raw = process.env.TRIBUTARY_DERIVED_CACHE_MB;
	const mb = raw === undefined || raw === '' ? DEFAULT_DERIVED_MB : Number(raw);
	return Number.isFinite(mb) && mb > 0 ? Math.floor(mb * 1024 * 1024) : 0;
}

const versions = new Map<string, string>();

/**
 * A digest of the code at `moduleUrl` (the caller's `import.meta.url`): part of every key of a
 * body kept across restarts, so an upgrade never reads what older code derived. In the built
 * app a module is a chunk whose content names the hashed chunks it imports, so the digest moves
 * whenever anything the caller's derivation imports does; a bundle of one file is all of it.
 */
export function codeVersion(moduleUrl: string): string {
	let v = versions.get(moduleUrl);
	if (!v) {
		try {
			v = createHash('sha256').update(readFileSync(fileURLToPath(moduleUrl))).digest('base64url').slice(0, 22);
		} catch {
			// Unreadable: a version of this process alone, so nothing it stores is read by another.
			v = `p${process.pid}-${Date.now()}`;
		}
		versions.set(moduleUrl, v);
	}
	return v;
}

// The database key each persisted object was read or built under, by object, so what is
// derived from an object (a canvas page's payload) can be kept under a key of its own.
const persistedKeys = new WeakMap<object, string>();

/** The key `persisted` kept `value` under, when it came from there. */
export function persistedKeyOf(value: object): string | undefined {
	return persistedKeys.get(value);
}

let writeFailures = 0;
// Writes in flight, so a test (or a stopping process) can wait for them.
const writes = new Set<Promise<void>>();

/** Resolves once every write `persisted` started has ended. */
export async function persistedWritesDone(): Promise<void> {
	while (writes.size) await Promise.allSettled([...writes]);
}

/**
 * `build()` behind a database row: the JSON value stored under `key` when there is one (read
 * and parsed, not rebuilt), else built, answered, and stored after the answer (gzipped JSON)
 * when `stillValid()` still holds, so a build that raced a write is never kept. The key must
 * name everything the value depends on, as graph cache keys do, and the code that derived it
 * (codeVersion). A failed read or write only
 * costs the rebuild: the row is never the source of truth.
 */
export async function persisted<V>(database: Database, workspace: string, key: string, build: () => Promise<V>, stillValid: () => Promise<boolean>): Promise<V> {
	const budget = derivedBudgetBytes();
	if (budget === 0) return build();
	try {
		const body = await readDerived(database, key);
		if (body) {
			const v = JSON.parse((await gunzipAsync(body)).toString('utf8')) as V;
			if (v && typeof v === 'object') persistedKeys.set(v, key);
			return v;
		}
	} catch (e) {
		warnOnce(e);
	}
	const value = await build();
	if (value && typeof value === 'object') persistedKeys.set(value, key);
	const write = (async () => {
		try {
			if (!(await stillValid())) return;
			const body = await gzipAsync(serialize(value), { level: 1 });
			await writeDerived(database, workspace, key, body, budget);
		} catch (e) {
			warnOnce(e);
		}
	})();
	writes.add(write);
	void write.finally(() => writes.delete(write));
	return value;
}

function warnOnce(e: unknown): void {
	if (writeFailures++ === 0) process.stderr.write(`derived cache: ${(e as Error)?.message ?? e} (answers are rebuilt instead)\n`);
}
