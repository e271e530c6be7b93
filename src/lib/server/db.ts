// The one database module: PGlite (embedded default) or Postgres through postgres.js, behind
// one Drizzle type. The two drivers differ in what raw queries return (TOOLCHAIN.md §4);
// everything outside this file goes through `rows()` and the numeric helpers here, so no
// caller ever looks at a driver-specific result shape.
import { once } from 'node:events';
import { mkdirSync } from 'node:fs';
import type { Writable } from 'node:stream';
import path from 'node:path';
import type { SQL } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import * as schema from './schema';

export type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
/** A database handle or an open transaction: repo functions accept either. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0] | Db;

export interface Database {
	kind: 'pglite' | 'postgres';
	db: Db;
	/** Runs raw SQL and returns plain row objects on both drivers. */
	rows<T = Record<string, unknown>>(query: SQL, tx?: Tx): Promise<T[]>;
	close(): Promise<void>;
}

export interface OpenOptions {
	/** A postgres:// URL; when absent, PGlite is used. */
	url?: string;
	/** PGlite data directory, or `memory://`. */
	dataDir?: string;
	/** A PGlite data dump (from `dumpDataDir`) to start from, skipping initdb. */
	loadDataDir?: Blob;
	/** Apply migrations (default true). */
	migrate?: boolean;
	migrationsFolder?: string;
}

export function rowsOf<T>(res: unknown): T[] {
	if (Array.isArray(res)) return res as T[];
	return ((res as { rows?: T[] }).rows ?? []) as T[];
}

/** int8 from a raw query: PGlite gives number or BigInt, postgres.js a string. */
export function toNumber(v: unknown): number {
	if (v === null || v === undefined) return 0;
	if (typeof v === 'number') return v;
	if (typeof v === 'bigint') return Number(v);
	return Number(v);
}

export function toBigInt(v: unknown): bigint {
	if (typeof v === 'bigint') return v;
	if (typeof v === 'number') return BigInt(v);
	return BigInt(String(v));
}

// ─── Bulk load (COPY) ─────────────────────────────────────────────────────────────────────

const COPY_ESCAPE = /[\\\t\n\r]/g;
const COPY_NEEDS_ESCAPE = /[\\\t\n\r]/;
const COPY_REPLACEMENT: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/**
 * One field of COPY's text format: NULL is `\N`, and backslash, tab, newline and carriage return
 * are escaped, so `''` and NULL stay apart and no value can end a row or the data (`\.`).
 */
export function copyField(v: string | number | bigint | null | undefined): string {
	if (v === null || v === undefined) return '\\N';
	if (typeof v !== 'string') return String(v);
	return COPY_NEEDS_ESCAPE.test(v) ? v.replace(COPY_ESCAPE, (c) => COPY_REPLACEMENT[c]) : v;
}

/** A text[] value as one COPY field: every element double-quoted (`\` and `"` escaped inside). */
export function copyTextArray(values: readonly string[] | null | undefined): string {
	if (values === null || values === undefined) return '\\N';
	return copyField(`{${values.map((x) => `"${x.replace(/[\\"]/g, '\\$&')}"`).join(',')}}`);
}

/** A jsonb value as one COPY field; `null`/`undefined` is SQL NULL (as Drizzle's insert stores it). */
export function copyJson(v: unknown): string {
	return v === null || v === undefined ? '\\N' : copyField(JSON.stringify(v));
}

/**
 * PGlite: the bytes of COPY data one `COPY … FROM '/dev/blob'` statement takes at most. A
 * statement's data is held three times until PGlite has read it (our strings, the Blob, PGlite's
 * own ArrayBuffer of it), so bigger statements raise a deploy's peak memory for few statements
 * saved (bench/README.md, "ingest").
 */
const PGLITE_COPY_BLOB_BYTES = 1 << 20;

interface PgliteClientLike {
	query(sql: string, params?: unknown[], opts?: { blob?: Blob }): Promise<unknown>;
}
interface PostgresQueryLike extends Promise<unknown> {
	writable(): Promise<Writable>;
	reject: (e: unknown) => void;
}
interface PostgresClientLike {
	unsafe(sql: string): PostgresQueryLike;
}

/** The driver's own client under a Drizzle handle or transaction (PGlite Transaction, postgres.js TransactionSql). */
function driverClient(tx: Tx): unknown {
	const client = (tx as unknown as { session?: { client?: unknown } }).session?.client;
	if (!client) throw new Error('copyRows: this Drizzle handle exposes no driver client');
	return client;
}

const quoteIdent = (s: string) => `"${s.replace(/"/g, '""')}"`;

/**
 * COPY data a 64 KB string at a time: the whole table's text never exists at once, and a
 * statement staged outside a transaction can be as small as one chunk.
 */
export function* copyChunks<T>(rows: Iterable<T>, line: (r: T) => string): Generator<string> {
	let buf = '';
	for (const r of rows) {
		buf += line(r);
		if (buf.length >= 65_536) {
			yield buf;
			buf = '';
		}
	}
	if (buf) yield buf;
}

/**
 * Bulk-loads rows with COPY inside `tx` (the caller's transaction: a failure rolls back with it).
 * `chunks` are COPY text-format data, each whole lines ending in `\n`, produced lazily so the
 * data never exists whole: on postgres.js one `COPY … FROM STDIN` written through its writable
 * stream with backpressure; on PGlite `COPY … FROM '/dev/blob'`, one statement per 1 MB of data.
 *
 * postgres.js 3.4.9 never settles the writable when the server rejects the COPY after the data
 * ended (a constraint checked at the end of the statement, or the last rows): porsager/postgres
 * #1173. The server's error still reaches the query's `reject`, so it is caught there and ends
 * the wait; the transaction then rolls back as for any failed statement.
 */
export interface CopyOptions {
	/** PGlite: the data one statement takes at most (default PGLITE_COPY_BLOB_BYTES). */
	statementBytes?: number;
}

export async function copyRows(database: Database, tx: Tx, table: string, columns: readonly string[], chunks: Iterable<string>, opts: CopyOptions = {}): Promise<void> {
	const target = `${quoteIdent(table)} (${columns.map(quoteIdent).join(', ')})`;
	const client = driverClient(tx);
	if (database.kind === 'pglite') {
		const c = client as PgliteClientLike;
		let parts: string[] = [];
		let size = 0;
		const flush = async () => {
			if (parts.length === 0) return;
			const blob = new Blob(parts);
			parts = [];
			size = 0;
			await c.query(`copy ${target} from '/dev/blob'`, [], { blob });
			// PGlite runs a statement synchronously and answers in a microtask: without a turn of
			// the event loop between statements, a big graph's COPY held the thread for seconds.
			await new Promise<void>((resolve) => setImmediate(resolve));
		};
		for (const chunk of chunks) {
			parts.push(chunk);
			size += chunk.length;
			if (size >= (opts.statementBytes ?? PGLITE_COPY_BLOB_BYTES)) await flush();
		}
		await flush();
		return;
	}
	const q = (client as PostgresClientLike).unsafe(`copy ${target} from stdin`);
	let fail!: (e: unknown) => void;
	const failed = new Promise<never>((_, reject) => (fail = reject));
	failed.catch(() => {});
	const reject = q.reject;
	q.reject = (e: unknown) => {
		fail(e);
		reject(e);
	};
	const w = await q.writable();
	w.on('error', (e) => fail(e));
	try {
		let sinceTurn = 0;
		for (const chunk of chunks) {
			if (!w.write(chunk)) await Promise.race([once(w, 'drain'), failed]);
			// Making the lines is our thread's work: a turn of the event loop every ~1 MB of them.
			sinceTurn += chunk.length;
			if (sinceTurn >= 1 << 20) {
				sinceTurn = 0;
				await new Promise<void>((resolve) => setImmediate(resolve));
			}
		}
	} catch (e) {
		// Our side failed (or the server did): CopyFail ends the COPY; the caller rolls back.
		if (!w.destroyed) w.destroy(e instanceof Error ? e : new Error(String(e)));
		throw e;
	}
	w.end();
	await Promise.race([once(w, 'finish'), failed]);
}

// Errors that mean the database cannot be reached right now (a restart, a cut connection, a
// refused connect), as opposed to a query that is wrong: answered 503, and the pool reconnects
// on the next query by itself. Codes: SQLSTATE class 08 and 57P01–57P03, and postgres.js's own.
const UNAVAILABLE_CODES = new Set([
	'57P01',
	'57P02',
	'57P03',
	'CONNECTION_CLOSED',
	'CONNECTION_ENDED',
	'CONNECTION_DESTROYED',
	'CONNECT_TIMEOUT',
	'ECONNREFUSED',
	'ECONNRESET',
	'EPIPE'
]);

export const DATABASE_UNAVAILABLE_MESSAGE = 'the database is unavailable right now; try again in a moment';

export function isDatabaseUnavailable(e: unknown): boolean {
	for (let cause: unknown = e, depth = 0; cause && depth < 4; cause = (cause as { cause?: unknown }).cause, depth++) {
		const code = (cause as { code?: unknown }).code;
		if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || code.startsWith('08'))) return true;
	}
	return false;
}

const defaultMigrations = () => path.resolve(process.cwd(), 'drizzle');

export async function openDatabase(opts: OpenOptions = {}): Promise<Database> {
	const migrationsFolder = opts.migrationsFolder ?? defaultMigrations();
	let handle: Database;
	if (opts.url) {
		const { default: postgres } = await import('postgres');
		const { drizzle, PostgresJsSession } = await import('drizzle-orm/postgres-js');
		const { PgDatabase } = await import('drizzle-orm/pg-core');
		const client = postgres(opts.url, {
			max: Number(process.env.TRIBUTARY_DB_POOL ?? 10),
			onnotice: () => {},
			// bigint columns arrive as strings by default; Drizzle's bigint mode handles typed
			// columns, raw reads go through toNumber/toBigInt.
			types: {}
		});
		const db = drizzle(client, { schema }) as unknown as Db;
		handle = {
			kind: 'postgres',
			db,
			rows: async (q, tx) => rowsOf(await (tx ?? db).execute(q)),
			close: async () => {
				await client.end({ timeout: 1 });
			}
		};
		// A reserved connection under the handle's dialect, as Drizzle's own transactions wrap theirs.
		const dialect = (db as unknown as { dialect: ConstructorParameters<typeof PostgresJsSession>[1] }).dialect;
		postgresClients.set(handle, {
			client: client as unknown as ReservableSql,
			wrap: (c) => new PgDatabase(dialect, new PostgresJsSession(c as never, dialect, undefined), undefined) as unknown as Db
		});
		if (opts.migrate !== false) {
			const { migrate } = await import('drizzle-orm/postgres-js/migrator');
			await migrate(db as never, { migrationsFolder });
		}
	} else {
		const { PGlite } = await import('@electric-sql/pglite');
		const { drizzle } = await import('drizzle-orm/pglite');
		const dataDir = opts.dataDir ?? 'memory://';
		if (!dataDir.includes('://')) mkdirSync(dataDir, { recursive: true });
		const client = new PGlite(dataDir, opts.loadDataDir ? { loadDataDir: opts.loadDataDir } : {});
		await client.waitReady;
		const db = drizzle(client, { schema }) as unknown as Db;
		handle = {
			kind: 'pglite',
			db,
			rows: async (q, tx) => rowsOf(await (tx ?? db).execute(q)),
			close: async () => {
				if (!client.closed) await client.close();
			}
		};
		if (opts.migrate !== false) {
			const { migrate } = await import('drizzle-orm/pglite/migrator');
			await migrate(db as never, { migrationsFolder });
		}
	}
	return handle;
}

// ─── Transactions of few round trips ─────────────────────────────────────────────────────

interface ReservedSql {
	unsafe(sql: string): Promise<{ command?: string }>;
	release(): void;
}
interface ReservableSql {
	reserve(): Promise<ReservedSql>;
}
const postgresClients = new WeakMap<Database, { client: ReservableSql; wrap: (c: ReservedSql) => Db }>();

/**
 * A transaction whose BEGIN travels with its first statement and whose COMMIT with its last
 * ones, for a writer that issues its statements in a few dependent steps: on a loaded machine
 * each round trip to Postgres waits for two processes to be scheduled, and it is round trips, not
 * statements, that a short transaction's time goes to. `fn` issues its statements through
 * `database.rows(q, tx)` and returns its result with the statements it left in flight (`last`);
 * the COMMIT is sent behind them at once. If any of them fails, Postgres turns that COMMIT into a
 * ROLLBACK: nothing of the transaction stays, and the failure is thrown. Statements after the
 * first wait for BEGIN to have succeeded, so none can run outside the transaction (the first
 * should be a read). PGlite (one process, no round trips): an ordinary transaction.
 */
export async function pipelinedTransaction<T>(database: Database, fn: (tx: Tx) => Promise<{ result: T; last: Promise<unknown> }>): Promise<T> {
	const pg = postgresClients.get(database);
	if (!pg) {
		return database.db.transaction(async (tx) => {
			const { result, last } = await fn(tx);
			await last;
			return result;
		});
	}
	const reserved = await pg.client.reserve();
	try {
		const begin = reserved.unsafe('begin');
		begin.catch(() => {});
		const inner = pg.wrap(reserved);
		let first = true;
		const tx = Object.create(inner, {
			execute: {
				value: (q: SQL) => {
					if (first) {
						first = false;
						return inner.execute(q);
					}
					return begin.then(() => inner.execute(q));
				}
			}
		}) as Db;
		let out: { result: T; last: Promise<unknown> };
		try {
			out = await fn(tx);
			await begin;
		} catch (e) {
			await reserved.unsafe('rollback').catch(() => {});
			throw e;
		}
		const commit = reserved.unsafe('commit');
		const [last, done] = await Promise.allSettled([out.last, commit]);
		if (last.status === 'rejected') {
			if (done.status === 'rejected') await reserved.unsafe('rollback').catch(() => {});
			throw last.reason;
		}
		if (done.status === 'rejected') {
			await reserved.unsafe('rollback').catch(() => {});
			throw done.reason;
		}
		if (done.value.command !== 'COMMIT') throw new Error(`the transaction ended with ${done.value.command ?? 'nothing'}, not COMMIT`);
		return out.result;
	} finally {
		reserved.release();
	}
}

let current: Promise<Database> | null = null;

/** The process-wide database, opened from the environment on first use. */
export function getDatabase(): Promise<Database> {
	if (!current) {
		const url = process.env.DATABASE_URL || undefined;
		const dataDir = process.env.TRIBUTARY_DATA_DIR || './data';
		current = openDatabase(url ? { url } : { dataDir: path.resolve(dataDir, 'pglite') });
		// Closed by the process's stop (shutdown.ts), once nothing needs it any more.
		current.catch(() => {
			current = null;
		});
	}
	return current;
}

/** For tests and the worker: use an already opened database as the process-wide one. */
export function setDatabase(database: Database): void {
	current = Promise.resolve(database);
}

export async function closeDatabase(): Promise<void> {
	if (!current) return;
	const database = await current.catch(() => null);
	current = null;
	await database?.close();
}
