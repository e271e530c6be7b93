// Share link rows: one per link minted, read on every request that presents it (by its id, the
// primary key), written when it is made, revoked, or used after a quiet minute.
import { and, desc, eq, sql } from 'drizzle-orm';
import type { ShareDomain } from '../../types/jobs';
import { toNumber, type Database } from '../db';
import { shareLink } from '../schema';

export interface ShareLinkRow {
	id: string;
	workspace: string;
	jobId: string;
	kind: ShareDomain;
	createdBy: string;
	createdAt: Date;
	expiresAt: Date | null;
	revokedAt: Date | null;
	revokedBy: string | null;
	lastUsedAt: Date | null;
}

const columns = {
	id: shareLink.id,
	workspace: shareLink.workspace,
	jobId: shareLink.jobId,
	kind: shareLink.kind,
	createdBy: shareLink.createdBy,
	createdAt: shareLink.createdAt,
	expiresAt: shareLink.expiresAt,
	revokedAt: shareLink.revokedAt,
	revokedBy: shareLink.revokedBy,
	lastUsedAt: shareLink.lastUsedAt
};

export async function insertShareLink(
	database: Database,
	l: { id: string; workspace: string; jobId: string; kind: ShareDomain; createdBy: string; createdAt: Date; expiresAt: Date | null }
): Promise<ShareLinkRow> {
	const [r] = await database.db.insert(shareLink).values(l).returning(columns);
	return r as ShareLinkRow;
}

export async function getShareLink(database: Database, workspace: string, id: string): Promise<ShareLinkRow | null> {
	const [r] = await database.db
		.select(columns)
		.from(shareLink)
		.where(and(eq(shareLink.workspace, workspace), eq(shareLink.id, id)))
		.limit(1);
	return (r as ShareLinkRow | undefined) ?? null;
}

/** The links of a run that still open it at `now` (neither revoked nor expired). */
export async function countActiveShareLinks(database: Database, workspace: string, jobId: string, now: Date): Promise<number> {
	const [r] = await database.rows<{ n: unknown }>(
		sql`select count(*) as n from share_link
		    where workspace = ${workspace} and job_id = ${jobId}::uuid and revoked_at is null
		      and (expires_at is null or expires_at > ${now.toISOString()}::timestamptz)`
	);
	return toNumber(r?.n ?? 0);
}

/**
 * A run's links, those still valid at `now` first (so none of them is ever cut off by the
 * limit), then newest first.
 */
export async function listShareLinks(database: Database, workspace: string, jobId: string, now: Date, limit: number): Promise<ShareLinkRow[]> {
	const active = sql`(${shareLink.revokedAt} is null and (${shareLink.expiresAt} is null or ${shareLink.expiresAt} > ${now.toISOString()}::timestamptz))`;
	const rows = await database.db
		.select(columns)
		.from(shareLink)
		.where(and(eq(shareLink.workspace, workspace), eq(shareLink.jobId, jobId)))
		.orderBy(desc(active), desc(shareLink.createdAt), shareLink.id)
		.limit(limit);
	return rows as ShareLinkRow[];
}

/**
 * Records a use at `now` unless one at or after `since` is already recorded (another request,
 * perhaps in another process, got there first).
 */
export async function touchShareLink(database: Database, id: string, now: Date, since: Date): Promise<void> {
	await database.rows(
		sql`update share_link set last_used_at = ${now.toISOString()}::timestamptz
		    where id = ${id}::uuid and (last_used_at is null or last_used_at < ${since.toISOString()}::timestamptz)`
	);
}

/**
 * Revokes a link of a run (once: a second revocation keeps the first one's time and author).
 * The link as it now is, or null when the run has no such link.
 */
export async function revokeShareLinkRow(database: Database, workspace: string, jobId: string, id: string, by: string, now: Date): Promise<ShareLinkRow | null> {
	await database.db
		.update(shareLink)
		.set({ revokedAt: now, revokedBy: by })
		.where(and(eq(shareLink.workspace, workspace), eq(shareLink.jobId, jobId), eq(shareLink.id, id), sql`${shareLink.revokedAt} is null`));
	const r = await getShareLink(database, workspace, id);
	return r && r.jobId === jobId ? r : null;
}
