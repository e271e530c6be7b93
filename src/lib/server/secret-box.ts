// Warehouse secrets at rest: each value sealed with AES-256-GCM under a key derived (HKDF-SHA256)
// from TRIBUTARY_ENCRYPTION_KEY, else from the share-link secret (TRIBUTARY_SECRET or the stored
// one), with a derivation of its own so the two keys never coincide. The value's place (workspace,
// warehouse, key) is the associated data: a sealed value copied to another row does not open.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { instanceSecret } from './bootstrap';
import type { Database } from './db';

const PREFIX = 'enc:v1:';
const INFO = 'tributary warehouse secrets v1';

export interface SecretKeys {
	/** What new values are sealed with. */
	current: Buffer;
	/** Also tried when opening (a rotation in progress). */
	previous: Buffer[];
}

export function deriveSecretKey(material: string | Uint8Array): Buffer {
	return Buffer.from(hkdfSync('sha256', material, 'tributary', INFO, 32));
}

/**
 * The keys of this process. `TRIBUTARY_ENCRYPTION_KEY` (and `TRIBUTARY_ENCRYPTION_KEY_PREVIOUS`
 * while rotating) when set, so a worker needs nothing else; otherwise the share-link secret's
 * derivation. `withInstanceSecret` (the web app at start) also tries the share-link secret's key,
 * so values sealed before TRIBUTARY_ENCRYPTION_KEY was set still open and are resealed.
 */
export async function secretKeys(database: Database, opts: { withInstanceSecret?: boolean } = {}): Promise<SecretKeys> {
	const given = process.env.TRIBUTARY_ENCRYPTION_KEY;
	const previous = process.env.TRIBUTARY_ENCRYPTION_KEY_PREVIOUS ? [deriveSecretKey(process.env.TRIBUTARY_ENCRYPTION_KEY_PREVIOUS)] : [];
	if (!given) return { current: deriveSecretKey(await instanceSecret(database)), previous };
	if (opts.withInstanceSecret) previous.push(deriveSecretKey(await instanceSecret(database)));
	return { current: deriveSecretKey(given), previous };
}

export const isSealed = (v: string) => v.startsWith(PREFIX);

export function sealSecret(key: Buffer, place: string, value: string): string {
	const iv = randomBytes(12);
	const c = createCipheriv('aes-256-gcm', key, iv);
	c.setAAD(Buffer.from(place));
	const data = Buffer.concat([c.update(value, 'utf8'), c.final(), c.getAuthTag()]);
	return `${PREFIX}${iv.toString('base64')}:${data.toString('base64')}`;
}

function openWith(key: Buffer, place: string, sealed: string): string | null {
	const [ivText, dataText] = sealed.slice(PREFIX.length).split(':');
	const iv = Buffer.from(ivText ?? '', 'base64');
	const data = Buffer.from(dataText ?? '', 'base64');
	if (iv.length !== 12 || data.length < 16) return null;
	try {
		const d = createDecipheriv('aes-256-gcm', key, iv);
		d.setAAD(Buffer.from(place));
		d.setAuthTag(data.subarray(data.length - 16));
		return Buffer.concat([d.update(data.subarray(0, data.length - 16)), d.final()]).toString('utf8');
	} catch {
		return null;
	}
}

export class SecretUnreadable extends Error {}

/**
 * A stored value in clear text, and whether it is sealed under the current key. A value stored
 * before encryption existed is plain text and is answered as it is.
 */
export function openSecret(keys: SecretKeys, place: string, stored: string): { value: string; current: boolean } {
	if (!isSealed(stored)) return { value: stored, current: false };
	const now = openWith(keys.current, place, stored);
	if (now !== null) return { value: now, current: true };
	for (const k of keys.previous) {
		const v = openWith(k, place, stored);
		if (v !== null) return { value: v, current: false };
	}
	throw new SecretUnreadable(
		`the stored secret ${place} does not open with this process's key: set TRIBUTARY_ENCRYPTION_KEY as the web app has it (and TRIBUTARY_ENCRYPTION_KEY_PREVIOUS while rotating), or save the secret again`
	);
}

/** Where a secret lives, bound into its ciphertext. */
export const secretPlace = (ws: string, warehouse: string, key: string) => `${ws}/${warehouse}/${key}`;
