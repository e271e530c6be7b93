// Every database test runs against both backends: PGlite always, and the machine's Postgres
// when TEST_DATABASE_URL is set (CI sets it; in CI its absence is a failure, not a skip).
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import postgres from 'postgres';
import { openDatabase, type Database } from '../../src/lib/server/db';
import { templatePath } from './pglite-template';

export interface Backend {
	name: 'pglite' | 'postgres';
	open(): Promise<Database>;
}

async function openPglite(): Promise<Database> {
	const dump = new Blob([readFileSync(templatePath())]);
	return openDatabase({ dataDir: 'memory://', loadDataDir: dump, migrate: false });
}

/** A fresh database on the server named by TEST_DATABASE_URL, dropped when closed. */
async function openPostgres(url: string): Promise<Database> {
	const name = `tributary_t_${randomBytes(6).toString('hex')}`;
	const admin = postgres(url, { max: 1, onnotice: () => {} });
	await admin.unsafe(`CREATE DATABASE ${name}`);
	const u = new URL(url);
	u.pathname = `/${name}`;
	const db = await openDatabase({ url: u.toString() });
	const close = db.close;
	db.close = async () => {
		await close();
		await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
		await admin.end({ timeout: 1 });
	};
	return db;
}

export function testBackends(): Backend[] {
	const url = process.env.TEST_DATABASE_URL;
	if (!url && process.env.CI) {
		throw new Error('TEST_DATABASE_URL must be set in CI: database tests run on PGlite and Postgres');
	}
	const list: Backend[] = [{ name: 'pglite', open: openPglite }];
	if (url) list.push({ name: 'postgres', open: () => openPostgres(url) });
	return list;
}
