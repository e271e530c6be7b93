// The one database module: PGlite (embedded default) or Postgres through postgres.js, behind
// one Drizzle type. The two drivers differ in what raw queries return (TOOLCHAIN.md §4);
// everything outside this file goes through `rows()` and the numeric helpers here, so no
// caller ever looks at a driver-specific result shape.
import { mkdirSync } from 'node:fs';
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

const defaultMigrations = () => path.resolve(process.cwd(), 'drizzle');

export async function openDatabase(opts: OpenOptions = {}): Promise<Database> {
	const migrationsFolder = opts.migrationsFolder ?? defaultMigrations();
	let handle: Database;
	if (opts.url) {
		const { default: postgres } = await import('postgres');
		const { drizzle } = await import('drizzle-orm/postgres-js');
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

let current: Promise<Database> | null = null;

/** The process-wide database, opened from the environment on first use. */
export function getDatabase(): Promise<Database> {
	if (!current) {
		const url = process.env.DATABASE_URL || undefined;
		const dataDir = process.env.TRIBUTARY_DATA_DIR || './data';
		current = openDatabase(url ? { url } : { dataDir: path.resolve(dataDir, 'pglite') });
		current.then(
			(h) => {
				// adapter-node closes the HTTP server on SIGTERM and emits this event but never
				// exits; an open pool would keep the process alive indefinitely.
				process.once('sveltekit:shutdown' as never, () => void h.close());
			},
			() => {
				current = null;
			}
		);
	}
	return current;
}

/** For tests and the worker: use an already opened database as the process-wide one. */
export function setDatabase(h: Database): void {
	current = Promise.resolve(h);
}

export async function closeDatabase(): Promise<void> {
	if (!current) return;
	const h = await current.catch(() => null);
	current = null;
	await h?.close();
}
