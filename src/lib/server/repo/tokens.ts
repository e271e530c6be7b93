// API tokens: stored as the SHA-256 of the bearer string, scoped to one workspace and owner.
import { and, desc, eq, sql } from 'drizzle-orm';
import type { Database } from '../db';
import { account, apiToken, member } from '../schema';

export interface TokenInfo {
	id: string;
	workspace: string;
	owner: string;
	label: string;
	scopes: string[];
	expiresAt: Date | null;
	createdAt: Date;
	lastUsedAt: Date | null;
}

const infoColumns = {
	id: apiToken.id,
	workspace: apiToken.workspace,
	owner: apiToken.owner,
	label: apiToken.label,
	scopes: apiToken.scopes,
	expiresAt: apiToken.expiresAt,
	createdAt: apiToken.createdAt,
	lastUsedAt: apiToken.lastUsedAt
};

export async function insertToken(
	database: Database,
	t: { id: string; hash: string; workspace: string; owner: string; label: string; scopes: string[]; expiresAt: Date | null }
): Promise<TokenInfo> {
	const [r] = await database.db.insert(apiToken).values(t).returning(infoColumns);
	return r;
}

export interface TokenOwner {
	token: TokenInfo;
	accountId: string;
	username: string;
	instanceAdmin: boolean;
}

/**
 * The token with the account it acts as. The owner is found through membership, so a token
 * stops working the moment its owner leaves the workspace.
 */
export async function findTokenByHash(database: Database, hash: string): Promise<TokenOwner | null> {
	const [r] = await database.db
		.select({ token: infoColumns, accountId: account.id, username: account.username, instanceAdmin: account.instanceAdmin })
		.from(apiToken)
		.innerJoin(member, and(eq(member.workspace, apiToken.workspace), eq(member.username, apiToken.owner)))
		.innerJoin(account, eq(account.id, member.accountId))
		.where(eq(apiToken.hash, hash));
	return r ?? null;
}

// When this process last recorded each token's use: a token sending events many times a second
// then costs one statement a minute, not one per request. Bounded: the oldest go first.
const touched = new Map<string, number>();
const TOUCH_EVERY_MS = 60_000;

/** Records use at most once a minute, so a busy CI token does not write on every request. */
export async function touchToken(database: Database, id: string): Promise<void> {
	const now = Date.now();
	if (now - (touched.get(id) ?? 0) < TOUCH_EVERY_MS) return;
	touched.delete(id);
	touched.set(id, now);
	if (touched.size > 10_000) touched.delete(touched.keys().next().value as string);
	await database.rows(
		sql`update api_token set last_used_at = now()
		    where id = ${id} and (last_used_at is null or last_used_at < now() - interval '1 minute')`
	);
}

export async function listTokensOf(database: Database, workspace: string, owner: string): Promise<TokenInfo[]> {
	return database.db
		.select(infoColumns)
		.from(apiToken)
		.where(and(eq(apiToken.workspace, workspace), eq(apiToken.owner, owner)))
		.orderBy(desc(apiToken.createdAt), apiToken.id);
}

/** Every token of the workspace, of every member (an admin's view: who holds what, to revoke). */
export async function listTokensIn(database: Database, workspace: string): Promise<TokenInfo[]> {
	return database.db
		.select(infoColumns)
		.from(apiToken)
		.where(eq(apiToken.workspace, workspace))
		.orderBy(apiToken.owner, desc(apiToken.createdAt), apiToken.id);
}

export async function getToken(database: Database, workspace: string, id: string): Promise<TokenInfo | null> {
	const [r] = await database.db
		.select(infoColumns)
		.from(apiToken)
		.where(and(eq(apiToken.workspace, workspace), eq(apiToken.id, id)));
	return r ?? null;
}

export async function deleteToken(database: Database, workspace: string, id: string): Promise<boolean> {
	const r = await database.db
		.delete(apiToken)
		.where(and(eq(apiToken.workspace, workspace), eq(apiToken.id, id)))
		.returning({ id: apiToken.id });
	return r.length > 0;
}
