// POST /w/{ws}/layout {levels}: lays out the levels of a canvas cut (an expanded group and the
// groups around it). The page holds the graph; this holds the layout library and the cache, so
// layout stays on the server. It reads nothing stored: it is open to members and to holders of
// a valid share link of this workspace (run pages), and bounded in size.
import { json } from '@sveltejs/kit';
import { layoutAccess } from '$lib/server/access';
import { ApiError, badRequest, handleApi, readJsonObject } from '$lib/server/http';
import { layoutRequest, parseLevels } from '$lib/server/pages/canvas';
import type { RequestHandler } from './$types';

export const POST: RequestHandler = handleApi(async (event) => {
	await layoutAccess(event, event.params.ws);
	const levels = parseLevels(await readJsonObject(event.request));
	if (typeof levels === 'string') throw badRequest(levels);
	try {
		return json({ layouts: layoutRequest(levels) });
	} catch (e) {
		if (e instanceof Error && !(e instanceof ApiError)) throw badRequest(e.message);
		throw e;
	}
});
