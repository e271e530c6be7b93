// Rows of derived_cache: bytes the app derived from other rows, kept so the first read after a
// restart is one lookup instead of a rebuild. The key names everything a body was derived
// from (the callers build it), so a body is never stale under its key; rows no request asks
// for any more are pruned, least recently used first, past a byte budget.
import { eq, sql } from 'drizzle-orm';
import type { Database } from '../db';
import { derivedCache } from '../schema';

/** The body stored under `key`, or null. */
export async function readDerived(database: Database, key: string): Promise<Uint8Array | null> {
	const [r] = await database.db.select({ body: derivedCache.body, usedAt: derivedCache.usedAt }).from(derivedCache).where(eq(derivedCache.key, key));
	if (!r) return null;
	// The prune orders by use: a row read keeps its place, stamped at most once an hour so a
	// busy page does not write on every read.
	if (Date.now() - r.usedAt.getTime() > 3_600_000) {
		await database.db.update(derivedCache).set({ usedAt: new Date() }).where(eq(derivedCache.key, key));
	}
	return r.body;
}

/** Stores `body` under `key`, then drops the least recently used rows past `maxBytes` in all. */
export async function writeDerived(database: Database, workspace: string, key: string, body: Uint8Array, maxBytes: number): Promise<void> {
	await database.db
		.insert(derivedCache)
		.values({ key, workspace, body, bytes: body.byteLength, usedAt: new Date() })
		.onConflictDoUpdate({ target: derivedCache.key, set: { body, bytes: body.byteLength, usedAt: new Date() } });
	await database.rows(
		sql`delete from derived_cache where key in (
		      select key from (select key, sum(bytes) over (order by used_at desc, key) as upto from derived_cache) t
		       where t.upto > ${maxBytes})`
	);
}

