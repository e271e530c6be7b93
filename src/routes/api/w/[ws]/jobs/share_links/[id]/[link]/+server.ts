// DELETE jobs/share_links/{id}/{link}: revokes one link of a run, for whoever may share it
// (shareGrant). From then on the link answers as any invalid one. The row stays, listed as
// revoked (by whom, when); revoking it again changes nothing.
import { shareGrant } from '$lib/server/access';
import { revokeRunShareLink } from '$lib/server/api/jobs/share';
import { handleApi, jsonSafe } from '$lib/server/http';
import type { RequestHandler } from './$types';

export const DELETE: RequestHandler = handleApi(async (event) => {
	const grant = await shareGrant(event, event.params.ws, event.params.id);
	return jsonSafe(await revokeRunShareLink(grant, event.params.link), { headers: { 'cache-control': 'private, no-store' } });
});
