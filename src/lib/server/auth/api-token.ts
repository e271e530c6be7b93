// Bearer tokens for the CLI and CI: random, shown once, stored as their SHA-256.
import { randomUUID } from 'node:crypto';
import { encodeBase32LowerCaseNoPadding } from '@oslojs/encoding';
import type { Database } from '../db';
import { findTokenByHash, insertToken, touchToken, type TokenInfo, type TokenOwner } from '../repo/tokens';
import { AuthCache } from './cache';
import { hashToken } from './session';

// A recognisable prefix lets secret scanners (and people) tell a leaked token from noise.
const PREFIX = 'trib_';

export function generateApiToken(): string {
	const bytes = new Uint8Array(24);
	crypto.getRandomValues(bytes);
	return PREFIX + encodeBase32LowerCaseNoPadding(bytes);
}

export async function mintApiToken(
	database: Database,
	t: { workspace: string; owner: string; label: string; scopes: string[]; expiresAt: Date | null }
): Promise<{ token: string; info: TokenInfo }> {
	const token = generateApiToken();
	const info = await insertToken(database, { ...t, id: randomUUID(), hash: hashToken(token) });
	return { token, info };
}

/** The token's owner, or null for an unknown, expired or orphaned token. */
export async function validateApiToken(database: Database, token: string): Promise<TokenOwner | null> {
	if (!token.startsWith(PREFIX) || token.length > 200) return null;
	const found = await findTokenByHash(database, hashToken(token));
	if (!found) return null;
	const exp = found.token.expiresAt;
	if (exp && exp.getTime() <= Date.now()) return null;
	await touchToken(database, found.token.id);
	return found;
}

const owners = new AuthCache<TokenOwner>();

/**
 * validateApiToken through the short-lived cache of cache.ts (its bounds say when a revocation
 * is seen): for the endpoints that senders call many times a second.
 */
export async function validateApiTokenCached(database: Database, token: string): Promise<TokenOwner | null> {
	if (!token.startsWith(PREFIX) || token.length > 200) return null;
	const hash = hashToken(token);
	const found = await owners.through(hash, () => findTokenByHash(database, hash));
	if (!found) return null;
	const exp = found.token.expiresAt;
	if (exp && exp.getTime() <= Date.now()) return null;
	await touchToken(database, found.token.id);
	return found;
}
