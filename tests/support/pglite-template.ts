// A migrated PGlite data directory, dumped once per migration set and loaded by every test
// file: loading a dump takes a fraction of a cold initdb (TOOLCHAIN.md §4).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openDatabase } from '../../src/lib/server/db';

const migrationsDir = path.resolve('drizzle');

export function templatePath(): string {
	const h = createHash('sha256');
	for (const f of readdirSync(migrationsDir).filter((f) => f.endsWith('.sql')).sort()) {
		h.update(f).update(readFileSync(path.join(migrationsDir, f)));
	}
	const dir = path.resolve('node_modules/.cache/tributary');
	mkdirSync(dir, { recursive: true });
	return path.join(dir, `pglite-${h.digest('hex').slice(0, 16)}.tar.gz`);
}

export async function ensureTemplate(): Promise<string> {
	const file = templatePath();
	if (existsSync(file)) return file;
	const db = await openDatabase({ dataDir: 'memory://' });
	const client = (db.db as unknown as { $client: { dumpDataDir(c: 'gzip'): Promise<Blob> } }).$client;
	const blob = await client.dumpDataDir('gzip');
	await db.close();
	const tmp = `${file}.${process.pid}.tmp`;
	writeFileSync(tmp, Buffer.from(await blob.arrayBuffer()));
	renameSync(tmp, file);
	return file;
}
