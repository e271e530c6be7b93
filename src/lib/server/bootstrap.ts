// First start of an instance: the instance admin and the share-link secret. Safe to run on
// every start and from several processes at once (an advisory lock serialises them).
import { randomBytes, randomUUID } from 'node:crypto';
import { hmac } from '@oslojs/crypto/hmac';
import { SHA256 } from '@oslojs/crypto/sha2';
import { decodeHex } from '@oslojs/encoding';
import { hashPassword, randomPassword } from './auth/password';
import type { Database } from './db';
import { isSegment } from './paths';
import { countAccounts, insertAccount } from './repo/accounts';
import { ensureInstanceSetting, generatedPasswordKey, getInstanceSetting, lockBootstrap } from './repo/instance';

const SHARE_SECRET_KEY = 'share_secret';

export interface BootstrapResult {
	adminCreated: boolean;
	/** Set only when the password was generated here (and printed once through `log`). */
	generatedPassword?: string;
}

export async function bootstrap(database: Database, opts: { log?: (line: string) => void } = {}): Promise<BootstrapResult> {
	const log = opts.log ?? (() => {});
	const username = process.env.TRIBUTARY_ADMIN_USER || 'admin';
	if (!isSegment(username)) {
		throw new Error(`TRIBUTARY_ADMIN_USER must match [A-Za-z0-9_-]+, got '${username}'`);
	}
	const given = process.env.TRIBUTARY_ADMIN_PASSWORD || undefined;
	const result: BootstrapResult = { adminCreated: false };
	await database.db.transaction(async (tx) => {
		await lockBootstrap(database, tx);
		if ((await countAccounts(database, tx)) === 0) {
			const password = given ?? randomPassword();
			const created = await insertAccount(
				database,
				{ id: randomUUID(), username, passwordHash: await hashPassword(password), instanceAdmin: true },
				tx
			);
			if (created) {
				result.adminCreated = true;
				if (!given) {
					result.generatedPassword = password;
					await ensureInstanceSetting(database, generatedPasswordKey(created.id), 'true', tx);
				}
			}
		}
		if (!process.env.TRIBUTARY_SECRET) {
			await ensureInstanceSetting(database, SHARE_SECRET_KEY, randomBytes(32).toString('hex'), tx);
		}
	});
	// Logged after commit, so a printed password is one that was actually stored.
	if (result.generatedPassword) {
		log(`Created instance admin '${username}' with password: ${result.generatedPassword}`);
	} else if (result.adminCreated) {
		log(`Created instance admin '${username}' (password from TRIBUTARY_ADMIN_PASSWORD)`);
	}
	return result;
}

// The stored secret is written once and never changed, so each database handle reads it once
// (a share-link poll otherwise paid a query for it on every request).
const storedSecrets = new WeakMap<Database, Promise<Uint8Array>>();

/** TRIBUTARY_SECRET, else the generated one stored in the database. */
export async function instanceSecret(database: Database): Promise<Uint8Array> {
	const fromEnv = process.env.TRIBUTARY_SECRET;
	if (fromEnv) return new TextEncoder().encode(fromEnv);
	let p = storedSecrets.get(database);
	if (!p) {
		p = (async () =>
			decodeHex(
				(await getInstanceSetting(database, SHARE_SECRET_KEY)) ??
					(await ensureInstanceSetting(database, SHARE_SECRET_KEY, randomBytes(32).toString('hex')))
			))();
		storedSecrets.set(database, p);
		p.catch(() => storedSecrets.delete(database));
	}
	return p;
}

/** The key share links of one workspace are signed with: HMAC-SHA256(secret, 'workspace:' + ws). */
export async function workspaceSecret(database: Database, ws: string): Promise<Uint8Array> {
	return hmac(SHA256, await instanceSecret(database), new TextEncoder().encode(`workspace:${ws}`));
}

/**
 * The admin line a first start prints, framed with where to sign in, so it stands out from
 * the build and start-up output around it.
 */
export function firstStartBanner(line: string, port: string = process.env.PORT || '3000'): string {
	const body = [line, `Sign in at http://localhost:${port}/login (the password is shown only this once)`];
	if (/ with password: /.test(line)) body.push('then change it under Settings → Your account');
	const rule = '─'.repeat(Math.max(...body.map((l) => l.length)) + 2);
	return ['', `┌${rule}`, ...body.map((l) => `│ ${l}`), `└${rule}`, ''].join('\n');
}
