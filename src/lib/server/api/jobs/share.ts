// A run's share links: making, listing and revoking them, for whoever the run's grant lets share
// it (someone who sees the run on their own account, not through a link).
import type { RunGrant } from '../../access';
import { getDatabase } from '../../db';
import { notFound } from '../../http';
import { shareLinkInfoOf } from './wire';
import type { ShareLinkInput } from './parse';
import { createShareLink, revokeShareLink, shareLinksOf } from '../../share';
import type { ShareLink, ShareLinkInfo } from '../../../types/jobs';

/** A new link to the run; its token is in this answer and nowhere else. */
export async function mintShareLink(grant: RunGrant, input: ShareLinkInput): Promise<ShareLink> {
	const sharer = grant.requireShare();
	const now = new Date();
	const made = await createShareLink(await getDatabase(), grant.job.workspace, grant.job.id, { ...input, createdBy: sharer.username }, now);
	return { ...shareLinkInfoOf(made.link, now), token: made.token, url: made.url };
}

/** The run's links (who made each, when, its expiry and last use; never a token). */
export async function shareLinksOfRun(grant: RunGrant): Promise<ShareLinkInfo[]> {
	grant.requireShare();
	const now = new Date();
	return (await shareLinksOf(await getDatabase(), grant.job.workspace, grant.job.id, now)).map((l) => shareLinkInfoOf(l, now));
}

/** Revokes one link of the run (404 for a link it does not have); revoking it again changes nothing. */
export async function revokeRunShareLink(grant: RunGrant, linkId: string): Promise<ShareLinkInfo> {
	const sharer = grant.requireShare();
	const now = new Date();
	const link = await revokeShareLink(await getDatabase(), grant.job.workspace, grant.job.id, linkId.toLowerCase(), sharer.username, now);
	if (!link) throw notFound('no such share link');
	return shareLinkInfoOf(link, now);
}
