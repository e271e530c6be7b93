// Share links (DESIGN.md §6). A token is signed with the workspace key, so a link never opens
// anything in another workspace, a forged token is refused without a database read, and
// changing the instance secret ends every link at once. Two formats, told apart by their shape:
//
//   stored  `{job_id}.{link_id}.{hex HMAC-SHA256(key, 'link:' ‖ job_id ‖ link_id ‖ domain)}`
//           every link minted now. `link_id` names its share_link row, which decides whether
//           the link still opens anything: not revoked, not expired. Listed and revocable.
//   signed  `{job_id}.{hex HMAC-SHA256(key, job_id ‖ domain)}`
//           links minted before links were stored. Still accepted, as they were: they have no
//           row, so they never expire and only a new instance secret revokes them.
//
// A revoked or expired link verifies to null, like a forged one, so its answer reveals nothing.
import { randomUUID } from 'node:crypto';
import { hmac } from '@oslojs/crypto/hmac';
import { SHA256 } from '@oslojs/crypto/sha2';
import { constantTimeEqual } from '@oslojs/crypto/subtle';
import { decodeHex, encodeHexLowerCase } from '@oslojs/encoding';
import { isJobId, SHARE_DOMAINS, type ShareDomain } from '../types/jobs';
import { workspaceSecret } from './bootstrap';
import type { Database } from './db';
import { ApiError } from './http';
import {
	countActiveShareLinks,
	getShareLink,
	insertShareLink,
	listShareLinks,
	revokeShareLinkRow,
	touchShareLink,
	type ShareLinkRow
} from './repo/share-links';

/** What a valid token grants: read of `jobId` and its descendants, to the domain's audience. */
export interface ShareGrant {
	jobId: string;
	domain: ShareDomain;
	/** The stored link's id; null for a link of the signed format (minted before links were stored). */
	linkId: string | null;
}

const MAC_HEX = /^[0-9a-f]{64}$/;
// uuid (36) + '.' + 64 hex digits; a stored link has a second uuid and '.' between them.
const SIGNED_LENGTH = 101;
const STORED_LENGTH = 138;

/** The longest lifetime a link may be given at creation (`expires_in`, seconds); none is "never". */
export const MAX_SHARE_EXPIRES_IN = 365 * 24 * 3600;
/** Links of one run that may be valid at once: revoke some to make more. */
export const MAX_ACTIVE_SHARE_LINKS = 100;
/** Rows a run's listing answers (every valid link fits: it is shown first). */
export const SHARE_LIST_LIMIT = 200;
/** A link's `last_used_at` moves at most this often, so opening a shared page costs no write. */
export const SHARE_TOUCH_INTERVAL_MS = 60_000;

/**
 * The MAC of a signed-format token. The uuid has a fixed length, so `job_id ‖ domain` cannot be
 * read two ways, and the two domains never share a MAC.
 */
export function shareMac(key: Uint8Array, jobId: string, domain: ShareDomain): Uint8Array {
	return hmac(SHA256, key, new TextEncoder().encode(`${jobId}${domain}`));
}

/**
 * The MAC of a stored link's token. The `link:` prefix keeps it apart from every signed-format
 * MAC (whose input starts with a hex digit); both ids have a fixed length.
 */
export function storedShareMac(key: Uint8Array, jobId: string, linkId: string, domain: ShareDomain): Uint8Array {
	return hmac(SHA256, key, new TextEncoder().encode(`link:${jobId}${linkId}${domain}`));
}

/** A stored link's token. */
export function signStoredShareToken(key: Uint8Array, jobId: string, linkId: string, domain: ShareDomain): string {
	if (!isJobId(jobId)) throw new Error(`not a job id: ${jobId}`);
	if (!isJobId(linkId)) throw new Error(`not a link id: ${linkId}`);
	return `${jobId}.${linkId}.${encodeHexLowerCase(storedShareMac(key, jobId, linkId, domain))}`;
}

/** The parts of a well-formed token of either format, or null. Says nothing about validity. */
export function parseShareToken(token: unknown): { jobId: string; linkId: string | null; mac: Uint8Array } | null {
	if (typeof token !== 'string' || (token.length !== SIGNED_LENGTH && token.length !== STORED_LENGTH)) return null;
	const jobId = token.slice(0, 36);
	if (token[36] !== '.' || !isJobId(jobId)) return null;
	let linkId: string | null = null;
	let mac = token.slice(37);
	if (token.length === STORED_LENGTH) {
		linkId = token.slice(37, 73);
		mac = token.slice(74);
		if (token[73] !== '.' || !isJobId(linkId)) return null;
	}
	if (!MAC_HEX.test(mac)) return null;
	return { jobId, linkId, mac: decodeHex(mac) };
}

/**
 * The grant a token's MAC proves under `key`, or null; a stored link's row is not consulted.
 * Every domain's MAC is computed and compared in constant time, with no early exit, so the time
 * taken says neither how much of the MAC was right nor which domain it was closest to.
 */
export function verifyShareTokenWithKey(key: Uint8Array, token: unknown): ShareGrant | null {
	const parsed = parseShareToken(token);
	if (!parsed) return null;
	const { jobId, linkId } = parsed;
	let found: ShareDomain | null = null;
	for (const domain of SHARE_DOMAINS) {
		const mac = linkId === null ? shareMac(key, jobId, domain) : storedShareMac(key, jobId, linkId, domain);
		if (constantTimeEqual(mac, parsed.mac)) found = domain;
	}
	return found === null ? null : { jobId, domain: found, linkId };
}

/** What a link's row says at `now`. */
export function shareLinkState(l: Pick<ShareLinkRow, 'revokedAt' | 'expiresAt'>, now: Date): 'active' | 'expired' | 'revoked' {
	if (l.revokedAt !== null) return 'revoked';
	if (l.expiresAt !== null && l.expiresAt.getTime() <= now.getTime()) return 'expired';
	return 'active';
}

/**
 * The grant of a token presented to workspace `ws` at `now`, or null for any token that opens
 * nothing: malformed, forged, of another workspace, or a stored link that is revoked, expired or
 * gone. A valid stored link's use is recorded, at most once per SHARE_TOUCH_INTERVAL_MS.
 */
export async function verifyShareToken(database: Database, ws: string, token: unknown, now: Date = new Date()): Promise<ShareGrant | null> {
	// A malformed token costs no key derivation, a forged one no row read.
	if (!parseShareToken(token)) return null;
	const grant = verifyShareTokenWithKey(await workspaceSecret(database, ws), token);
	if (!grant || grant.linkId === null) return grant;
	const row = await getShareLink(database, ws, grant.linkId);
	if (!row || row.jobId !== grant.jobId || row.kind !== grant.domain || shareLinkState(row, now) !== 'active') return null;
	const since = new Date(now.getTime() - SHARE_TOUCH_INTERVAL_MS);
	if (row.lastUsedAt === null || row.lastUsedAt < since) await touchShareLink(database, row.id, now, since);
	return grant;
}

/** A link just made: its row and its token (shown in this answer and nowhere else). */
export interface NewShareLink {
	link: ShareLinkRow;
	token: string;
	url: string;
}

/**
 * Makes a link to `jobId` for `kind`'s audience, by `createdBy` (the gate, requireShareMint, is
 * the caller's), valid for `expiresIn` seconds from `now`, or until revoked when null.
 */
export async function createShareLink(
	database: Database,
	ws: string,
	jobId: string,
	o: { kind: ShareDomain; expiresIn: number | null; createdBy: string },
	now: Date = new Date()
): Promise<NewShareLink> {
	if ((await countActiveShareLinks(database, ws, jobId, now)) >= MAX_ACTIVE_SHARE_LINKS) {
		throw new ApiError(409, `this run already has ${MAX_ACTIVE_SHARE_LINKS} valid share links (the limit); revoke some before making another`);
	}
	const id = randomUUID();
	const expiresAt = o.expiresIn === null ? null : new Date(now.getTime() + o.expiresIn * 1000);
	const link = await insertShareLink(database, { id, workspace: ws, jobId, kind: o.kind, createdBy: o.createdBy, createdAt: now, expiresAt });
	const token = signStoredShareToken(await workspaceSecret(database, ws), jobId, id, o.kind);
	return { link, token, url: shareUrl(ws, jobId, token) };
}

/** The links of a run (see listShareLinks for the order). */
export async function shareLinksOf(database: Database, ws: string, jobId: string, now: Date = new Date()): Promise<ShareLinkRow[]> {
	return listShareLinks(database, ws, jobId, now, SHARE_LIST_LIMIT);
}

/** Revokes one link of a run, by `by`; null when the run has no such link. Revoking twice changes nothing. */
export async function revokeShareLink(database: Database, ws: string, jobId: string, linkId: string, by: string, now: Date = new Date()): Promise<ShareLinkRow | null> {
	if (!isJobId(linkId)) return null;
	return revokeShareLinkRow(database, ws, jobId, linkId, by, now);
}

/** The run page a link opens, relative to the site. */
export function shareUrl(ws: string, jobId: string, token: string): string {
	return `/w/${ws}/run/${jobId}?view_token=${encodeURIComponent(token)}`;
}
