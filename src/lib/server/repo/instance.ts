// Instance-wide key/value settings (the generated share-link secret lives here).
import { eq, sql } from 'drizzle-orm';
import type { Database, Tx } from '../db';
import { instanceSetting } from '../schema';

export async function getInstanceSetting(database: Database, key: string): Promise<string | null> {
	const [r] = await database.db.select({ value: instanceSetting.value }).from(instanceSetting).where(eq(instanceSetting.key, key));
	return r?.value ?? null;
}

/** Stores `value` unless the key already has one; returns the value that is stored. */
export async function ensureInstanceSetting(database: Database, key: string, value: string, tx?: Tx): Promise<string> {
	await database.rows(sql`insert into instance_setting (key, value) values (${key}, ${value}) on conflict (key) do nothing`, tx);
	const [r] = await database.rows<{ value: string }>(sql`select value from instance_setting where key = ${key}`, tx);
	return r.value;
}

/**
 * The setting that marks an account whose password was generated at first start (and printed
 * once): it stays until the account's password changes, so the page can ask to change it.
 */
export const generatedPasswordKey = (accountId: string) => `generated_password:${accountId}`;

export async function hasGeneratedPassword(database: Database, accountId: string): Promise<boolean> {
	return (await getInstanceSetting(database, generatedPasswordKey(accountId))) !== null;
}

/** Serialises bootstraps of several processes starting on one empty database. */
export async function lockBootstrap(database: Database, tx: Tx): Promise<void> {
	await database.rows(sql`select pg_advisory_xact_lock(hashtext('tributary:bootstrap'))`, tx);
}
