// POST /w/{ws}/layout {levels}: lays out the levels of a canvas cut (an expanded group and the
// groups around it). The page holds the graph; this holds the layout library and the cache, so
// layout stays on the server. It reads nothing stored: it is open to members and to holders of
// a valid share link of this workspace (run pages), and bounded in size.
import { json } from '@sveltejs/kit';
import { viewTokenOf, workspacePrincipal } from '$lib/server/access';
import { getDatabase } from '$lib/server/db';
import { ApiError, badRequest, handleApi, readJsonObject, unauthorized } from '$lib/server/http';
import { layoutRequest, parseLevels } from '$lib/server/pages/canvas';
import { verifyShareToken } from '$lib/server/share';
import type { RequestHandler } from './$types';

export const POST: RequestHandler = handleApi(async (event) => {
	const ws = event.params.ws;
	const token = viewTokenOf(event);
	if (token !== null) {
		if (!(await verifyShareToken(await getDatabase(), ws, token))) throw unauthorized('this share link is not valid');
	} else {
		await workspacePrincipal(event, ws);
	}
	const levels = parseLevels(await readJsonObject(event.request));
	if (typeof levels === 'string') throw badRequest(levels);
	try {
		return json({ layouts: layoutRequest(levels) });
	} catch (e) {
		if (e instanceof Error && !(e instanceof ApiError)) throw badRequest(e.message);
		throw e;
	}
});
