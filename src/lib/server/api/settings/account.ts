// The signed-in person's own account: changing one's password. Account-wide, not per workspace.
import type { Cookies } from '@sveltejs/kit';
import type { AuthContext } from '../../auth/context';
import { attemptLogin, signIn } from '../../auth/authenticate';
import { parsePassword } from '../../auth/admin-input';
import { hashPassword } from '../../auth/password';
import { ApiError, badRequest, forbidden } from '../../api-error';
import { getDatabase } from '../../db';
import { changeOwnPassword } from '../../repo/accounts';
import { hasGeneratedPassword } from '../../repo/instance';

export interface PasswordChange {
	current: string;
	next: string;
}

export function parsePasswordChange(body: Record<string, unknown>): PasswordChange {
	const current = body.current_password;
	if (typeof current !== 'string' || current.length === 0) throw badRequest('current_password: required (the password you signed in with)');
	const next = parsePassword(body.new_password, 'new_password');
	if (next === current) throw badRequest('new_password: must differ from the current password');
	return { current, next };
}

/**
 * Changes the caller's password. Only from a browser session: a token acts for its owner but is
 * not the owner, and must not take the account over. The current password is checked under the
 * sign-in throttle (a stolen session guesses no faster than the sign-in page allows). Every
 * session of the account ends, the caller's too, and a fresh one is started for this browser:
 * a cookie copied before the change no longer works, and the person who changed it stays in.
 */
export async function changePassword(
	event: { getClientAddress(): string; cookies: Cookies; url: URL },
	auth: AuthContext,
	body: Record<string, unknown>
): Promise<{ username: string; sessions_ended: number }> {
	if (auth.via !== 'session') throw forbidden('a password is changed from a signed-in browser session, not with an API token');
	const input = parsePasswordChange(body);
	if (input.next.toLowerCase() === auth.username.toLowerCase()) throw badRequest('new_password: must not be the username');
	try {
		await attemptLogin(event, auth.username, input.current);
	} catch (e) {
		if (e instanceof ApiError && e.status === 401) throw badRequest('current_password: this is not your current password');
		throw e;
	}
	const { sessionsEnded } = await changeOwnPassword(await getDatabase(), auth.accountId, await hashPassword(input.next));
	await signIn(event, auth.accountId);
	return { username: auth.username, sessions_ended: sessionsEnded };
}

/** Whether the account still has the password a first start generated (and printed in the log). */
export async function passwordIsGenerated(accountId: string): Promise<boolean> {
	return hasGeneratedPassword(await getDatabase(), accountId);
}
