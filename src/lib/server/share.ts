// Share links (DESIGN.md §6): `{job_id}.{hex HMAC-SHA256(workspace key, job_id ‖ domain)}`.
// Stateless on purpose: a link is checked without a database row, so it can be handed out by
// any instance; the key is per workspace, so a link never opens anything in another one.
import { hmac } from '@oslojs/crypto/hmac';
import { SHA256 } from '@oslojs/crypto/sha2';
import { constantTimeEqual } from '@oslojs/crypto/subtle';
import { decodeHex, encodeHexLowerCase } from '@oslojs/encoding';
import { isJobId, SHARE_DOMAINS, type ShareDomain } from '../types/jobs';
import { workspaceSecret } from './bootstrap';
import type { Database } from './db';

/** What a valid token grants: read of `jobId` and its descendants, to the domain's audience. */
export interface ShareGrant {
	jobId: string;
	domain: ShareDomain;
}

const MAC_HEX = /^[0-9a-f]{64}$/;
// uuid (36) + '.' + 64 hex digits: anything longer is refused before any parsing.
const TOKEN_LENGTH = 101;

/**
 * The MAC of one (job, domain). The uuid has a fixed length, so `job_id ‖ domain` cannot be
 * read two ways, and the two domains never share a MAC.
 */
export function shareMac(key: Uint8Array, jobId: string, domain: ShareDomain): Uint8Array {
	return hmac(SHA256, key, new TextEncoder().encode(`${jobId}${domain}`));
}

export function signShareToken(key: Uint8Array, jobId: string, domain: ShareDomain): string {
	if (!isJobId(jobId)) throw new Error(`not a job id: ${jobId}`);
	return `${jobId}.${encodeHexLowerCase(shareMac(key, jobId, domain))}`;
}

/** The parts of a well-formed token, or null. Says nothing about validity. */
export function parseShareToken(token: unknown): { jobId: string; mac: Uint8Array } | null {
	if (typeof token !== 'string' || token.length !== TOKEN_LENGTH) return null;
	const jobId = token.slice(0, 36);
	const mac = token.slice(37);
	if (token[36] !== '.' || !isJobId(jobId) || !MAC_HEX.test(mac)) return null;
	return { jobId, mac: decodeHex(mac) };
}

/**
 * The grant of a token under `key`, or null. Every domain's MAC is computed and compared in
 * constant time, with no early exit, so the time taken says neither how much of the MAC was
 * right nor which domain it was closest to.
 */
export function verifyShareTokenWithKey(key: Uint8Array, token: unknown): ShareGrant | null {
	const parsed = parseShareToken(token);
	if (!parsed) return null;
	let found: ShareDomain | null = null;
	for (const domain of SHARE_DOMAINS) {
		if (constantTimeEqual(shareMac(key, parsed.jobId, domain), parsed.mac)) found = domain;
	}
	return found === null ? null : { jobId: parsed.jobId, domain: found };
}

export async function mintShareToken(h: Database, ws: string, jobId: string, domain: ShareDomain): Promise<string> {
	return signShareToken(await workspaceSecret(h, ws), jobId, domain);
}

export async function verifyShareToken(h: Database, ws: string, token: unknown): Promise<ShareGrant | null> {
	// A malformed token costs no key derivation.
	if (!parseShareToken(token)) return null;
	return verifyShareTokenWithKey(await workspaceSecret(h, ws), token);
}

/** The run page a link opens, relative to the site. */
export function shareUrl(ws: string, jobId: string, token: string): string {
	return `/w/${ws}/run/${jobId}?view_token=${encodeURIComponent(token)}`;
}
