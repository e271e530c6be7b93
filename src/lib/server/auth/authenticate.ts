// Who is calling: a bearer token (explicit, wins) or the session cookie. Renews sliding
// sessions by sending the cookie again, and drops a cookie that no longer names a session.
import type { Cookies } from '@sveltejs/kit';
import { getDatabase } from '../db';
import { findAccountByUsername } from '../repo/accounts';
import { validateApiToken, validateApiTokenCached } from './api-token';
import type { AuthContext } from './context';
import { ApiError, unauthorized } from '../http';
import { burnPasswordCheck, verifyPassword } from './password';
import {
	createSession,
	invalidateSession,
	deleteSessionCookie,
	SESSION_COOKIE,
	setSessionCookie,
	validateSessionToken
} from './session';
import { LoginThrottle } from './throttle';

interface AuthEvent {
	request: Request;
	cookies: Cookies;
	url: URL;
}

/**
 * `cachedToken`: a bearer token may be judged by a lookup up to AUTH_CACHE_MS old (cache.ts), for
 * the endpoints senders call many times a second; every other request asks the database.
 */
export async function authenticate(event: AuthEvent, opts: { cachedToken?: boolean } = {}): Promise<AuthContext | null> {
	const header = event.request.headers.get('authorization');
	if (header !== null) {
		// A request that names a token is judged by that token alone: a bad token with a valid
		// cookie must not quietly act as the cookie's user.
		const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
		if (!m) return null;
		const database = await getDatabase();
		const found = await (opts.cachedToken ? validateApiTokenCached : validateApiToken)(database, m[1]);
		if (!found) return null;
		return {
			accountId: found.accountId,
			username: found.username,
			instanceAdmin: found.instanceAdmin,
			via: 'token',
			token: { id: found.token.id, workspace: found.token.workspace, scopes: found.token.scopes }
		};
	}
	const token = event.cookies.get(SESSION_COOKIE);
	if (!token) return null;
	const database = await getDatabase();
	const valid = await validateSessionToken(database, token);
	if (!valid) {
		deleteSessionCookie(event);
		return null;
	}
	if (valid.renewed) setSessionCookie(event, token, valid.session.expiresAt);
	return {
		accountId: valid.account.id,
		username: valid.account.username,
		instanceAdmin: valid.account.instanceAdmin,
		via: 'session',
		sessionId: valid.session.id
	};
}

const GENERIC_FAILURE = 'invalid username or password';

let loginThrottle = new LoginThrottle();

/** Replaces the process's sign-in throttle (tests: a fresh one, or one on a fake clock); returns the old one. */
export function setLoginThrottle(t: LoginThrottle): LoginThrottle {
	const old = loginThrottle;
	loginThrottle = t;
	return old;
}

/**
 * The sign-in gate of the API and the login form: the throttle decides first (a refusal is a
 * 429 with Retry-After, and costs no password check), then the password. Any failure of the
 * credentials is one generic 401. Throttling is per process (see throttle.ts).
 */
export async function attemptLogin(
	event: { getClientAddress(): string },
	username: string,
	password: string
): Promise<{ accountId: string; username: string }> {
	const attempt = loginThrottle.attempt(username, event.getClientAddress());
	if (!attempt.allowed) {
		const s = attempt.retryAfterS;
		const wait = s < 120 ? `${s} second${s === 1 ? '' : 's'}` : `${Math.ceil(s / 60)} minutes`;
		throw new ApiError(429, `too many failed sign-ins; try again in ${wait}`, { 'retry-after': String(attempt.retryAfterS) });
	}
	const who = await checkCredentials(username, password);
	if (!who) throw unauthorized(GENERIC_FAILURE);
	attempt.succeeded();
	return who;
}

/** Checks a username and password; null for any failure, in about the same time. */
export async function checkCredentials(
	username: string,
	password: string
): Promise<{ accountId: string; username: string } | null> {
	const database = await getDatabase();
	const account = username.length <= 100 ? await findAccountByUsername(database, username) : null;
	if (!account?.passwordHash) {
		await burnPasswordCheck(password);
		return null;
	}
	if (!(await verifyPassword(password, account.passwordHash))) return null;
	return { accountId: account.id, username: account.username };
}

/** Starts a browser session for the account and sets its cookie. */
export async function signIn(event: { cookies: Cookies; url: URL }, accountId: string): Promise<void> {
	const database = await getDatabase();
	const { token, session } = await createSession(database, accountId);
	setSessionCookie(event, token, session.expiresAt);
}

/** Ends the caller's browser session (if any) and clears the cookie. */
export async function signOut(event: { cookies: Cookies; url: URL }, auth: AuthContext | null): Promise<void> {
	if (auth?.sessionId) {
		const database = await getDatabase();
		await invalidateSession(database, auth.sessionId);
	}
	deleteSessionCookie(event);
}
