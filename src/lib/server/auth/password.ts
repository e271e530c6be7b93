// Password hashing with Node's scrypt. The parameters are stored with each hash so they can be
// raised later without invalidating existing accounts.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const N = 1 << 15;
const R = 8;
const P = 1;
const KEY_LEN = 32;
const SALT_LEN = 16;

function derive(password: string, salt: Buffer, n: number, r: number, p: number, keyLen: number): Promise<Buffer> {
	// scrypt needs 128·N·r bytes; Node's default cap (32 MiB) is exactly N=2^15, r=8, so leave headroom.
	const opts: ScryptOptions = { N: n, r, p, maxmem: 256 * n * r + 1024 * 1024 };
	return new Promise((resolve, reject) =>
		scrypt(password.normalize('NFKC'), salt, keyLen, opts, (err, key) => (err ? reject(err) : resolve(key)))
	);
}

/** `scrypt$N$r$p$<salt b64>$<key b64>` */
export async function hashPassword(password: string): Promise<string> {
	const salt = randomBytes(SALT_LEN);
	const key = await derive(password, salt, N, R, P, KEY_LEN);
	return ['scrypt', N, R, P, salt.toString('base64'), key.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
	const parts = stored.split('$');
	if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
	const [n, r, p] = parts.slice(1, 4).map(Number);
	if (![n, r, p].every((x) => Number.isInteger(x) && x > 0)) return false;
	const salt = Buffer.from(parts[4], 'base64');
	const expected = Buffer.from(parts[5], 'base64');
	if (expected.length === 0) return false;
	const actual = await derive(password, salt, n, r, p, expected.length);
	return timingSafeEqual(actual, expected);
}

// Made once at start-up with the current parameters, so the first unknown username costs no more
// than any other, and a change of N, r or p changes the dummy with it.
const dummyHash: Promise<string> = hashPassword(randomBytes(16).toString('hex'));

/** The dummy hash an unknown username is checked against (exported for its test). */
export const dummyPasswordHash = (): Promise<string> => dummyHash;

/**
 * Spends the same work as a real verification, so an unknown username answers no faster than a
 * wrong password (the login's one generic message would otherwise leak through timing).
 */
export async function burnPasswordCheck(password: string): Promise<void> {
	await verifyPassword(password, await dummyHash);
}

/** A random password for generated accounts: 20 characters of base64url (120 bits). */
export function randomPassword(): string {
	return randomBytes(15).toString('base64url');
}
