// Browser sessions, following lucia-auth.com's "sessions" guide: a random token in the cookie,
// only its SHA-256 in the database, 30-day expiry renewed once less than half is left.
import type { Cookies } from '@sveltejs/kit';
import { createHash } from 'node:crypto';
import { encodeBase32LowerCaseNoPadding } from '@oslojs/encoding';
import type { Database } from '../db';
import { isHttpsRequest } from '../origin';
import {
	deleteSession,
	findSessionWithAccount,
	insertSession,
	setSessionExpiry,
	type AccountRow,
	type SessionRow
} from '../repo/accounts';

export const SESSION_COOKIE = 'tributary_session';
const DAY_MS = 24 * 60 * 60 * 1000;
export const SESSION_TTL_MS = 30 * DAY_MS;
export const SESSION_RENEW_MS = 15 * DAY_MS;

/** 20 random bytes, base32 lower case: 32 characters. */
export function generateSessionToken(): string {
	const bytes = new Uint8Array(20);
	crypto.getRandomValues(bytes);
	return encodeBase32LowerCaseNoPadding(bytes);
}

/** The stored id of a token (also used for API tokens): hex SHA-256. */
export function hashToken(token: string): string {
	return createHash('sha256').update(token, 'utf8').digest('hex');
}

export async function createSession(database: Database, accountId: string): Promise<{ token: string; session: SessionRow }> {
	const token = generateSessionToken();
	const session: SessionRow = { id: hashToken(token), accountId, expiresAt: new Date(Date.now() + SESSION_TTL_MS) };
	await insertSession(database, session);
	return { token, session };
}

export interface ValidSession {
	session: SessionRow;
	account: AccountRow;
	/** True when the expiry moved: the cookie must be sent again with the new date. */
	renewed: boolean;
}

export async function validateSessionToken(database: Database, token: string): Promise<ValidSession | null> {
	const id = hashToken(token);
	const found = await findSessionWithAccount(database, id);
	if (!found) return null;
	const { session, account } = found;
	const now = Date.now();
	if (now >= session.expiresAt.getTime()) {
		await deleteSession(database, id);
		return null;
	}
	let renewed = false;
	if (session.expiresAt.getTime() - now < SESSION_RENEW_MS) {
		session.expiresAt = new Date(now + SESSION_TTL_MS);
		await setSessionExpiry(database, id, session.expiresAt);
		renewed = true;
	}
	return { session, account, renewed };
}

export async function invalidateSession(database: Database, sessionId: string): Promise<void> {
	await deleteSession(database, sessionId);
}

interface CookieTarget {
	cookies: Cookies;
	url: URL;
}

export function setSessionCookie(event: CookieTarget, token: string, expiresAt: Date): void {
	event.cookies.set(SESSION_COOKIE, token, {
		httpOnly: true,
		sameSite: 'lax',
		path: '/',
		expires: expiresAt,
		// Kit defaults to secure, which browsers drop on plain http to anything but localhost.
		secure: isHttpsRequest(event.url)
	});
}

export function deleteSessionCookie(event: CookieTarget): void {
	event.cookies.set(SESSION_COOKIE, '', {
		httpOnly: true,
		sameSite: 'lax',
		path: '/',
		maxAge: 0,
		secure: isHttpsRequest(event.url)
	});
}
