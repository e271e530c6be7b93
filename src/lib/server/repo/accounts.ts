// Accounts and browser sessions. Sessions store only the SHA-256 of their cookie token.
import { asc, eq, sql } from 'drizzle-orm';
import type { Database, Tx } from '../db';
import { account, apiToken, instanceSetting, session } from '../schema';
import { generatedPasswordKey } from './instance';

export interface AccountRow {
	id: string;
	username: string;
	passwordHash: string | null;
	instanceAdmin: boolean;
}

export interface SessionRow {
	id: string;
	accountId: string;
	expiresAt: Date;
}

const accountColumns = {
	id: account.id,
	username: account.username,
	passwordHash: account.passwordHash,
	instanceAdmin: account.instanceAdmin
};

export async function countAccounts(database: Database, tx?: Tx): Promise<number> {
	const [r] = await database.rows<{ n: number }>(sql`select count(*)::int as n from account`, tx);
	return Number(r.n);
}

export async function findAccountByUsername(database: Database, username: string): Promise<AccountRow | null> {
	const [r] = await database.db.select(accountColumns).from(account).where(eq(account.username, username));
	return r ?? null;
}

export async function getAccount(database: Database, id: string): Promise<AccountRow | null> {
	const [r] = await database.db.select(accountColumns).from(account).where(eq(account.id, id));
	return r ?? null;
}

export async function insertAccount(
	database: Database,
	a: { id: string; username: string; passwordHash: string | null; instanceAdmin?: boolean },
	tx?: Tx
): Promise<AccountRow | null> {
	// ON CONFLICT: two requests creating one username race; the loser reads the winner's row.
	const [r] = await (tx ?? database.db)
		.insert(account)
		.values({ id: a.id, username: a.username, passwordHash: a.passwordHash, instanceAdmin: a.instanceAdmin ?? false })
		.onConflictDoNothing({ target: account.username })
		.returning(accountColumns);
	return r ?? null;
}

/**
 * A password reset: the new hash, and every session and API token of the account end with the
 * old password (tokens name their owner by username, in every workspace).
 */
export async function resetPassword(database: Database, accountId: string, passwordHash: string): Promise<void> {
	await database.db.transaction(async (tx) => {
		const [a] = await tx.update(account).set({ passwordHash }).where(eq(account.id, accountId)).returning({ username: account.username });
		if (!a) return;
		await tx.delete(instanceSetting).where(eq(instanceSetting.key, generatedPasswordKey(accountId)));
		await tx.delete(session).where(eq(session.accountId, accountId));
		await tx.delete(apiToken).where(eq(apiToken.owner, a.username));
	});
}

/**
 * The account holder's own change: the new hash, and every browser session of the account ends
 * (the caller starts a fresh one). API tokens stay: they are revoked one by one, and a deploy
 * token should not stop because its owner changed a password.
 */
export async function changeOwnPassword(database: Database, accountId: string, passwordHash: string): Promise<{ sessionsEnded: number }> {
	return database.db.transaction(async (tx) => {
		await tx.update(account).set({ passwordHash }).where(eq(account.id, accountId));
		await tx.delete(instanceSetting).where(eq(instanceSetting.key, generatedPasswordKey(accountId)));
		const ended = await tx.delete(session).where(eq(session.accountId, accountId)).returning({ id: session.id });
		return { sessionsEnded: ended.length };
	});
}

export async function listAccounts(database: Database): Promise<AccountRow[]> {
	return database.db.select(accountColumns).from(account).orderBy(asc(account.username));
}

// ─── Sessions ─────────────────────────────────────────────────────────────────────────────

export async function insertSession(database: Database, s: SessionRow): Promise<void> {
	await database.db.insert(session).values(s);
}

export async function findSessionWithAccount(
	database: Database,
	id: string
): Promise<{ session: SessionRow; account: AccountRow } | null> {
	const [r] = await database.db
		.select({ session: { id: session.id, accountId: session.accountId, expiresAt: session.expiresAt }, account: accountColumns })
		.from(session)
		.innerJoin(account, eq(account.id, session.accountId))
		.where(eq(session.id, id));
	return r ?? null;
}

export async function setSessionExpiry(database: Database, id: string, expiresAt: Date): Promise<void> {
	await database.db.update(session).set({ expiresAt }).where(eq(session.id, id));
}

export async function deleteSession(database: Database, id: string): Promise<void> {
	await database.db.delete(session).where(eq(session.id, id));
}

export async function getSession(database: Database, id: string): Promise<SessionRow | null> {
	const [r] = await database.db
		.select({ id: session.id, accountId: session.accountId, expiresAt: session.expiresAt })
		.from(session)
		.where(eq(session.id, id));
	return r ?? null;
}

/** Expired sessions are deleted when met; this clears the ones nobody presents again. */
export async function deleteExpiredSessions(database: Database): Promise<void> {
	await database.rows(sql`delete from session where expires_at <= now()`);
}
