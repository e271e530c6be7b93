// POST /w/{ws}/layout {levels, direction?}: lays out the levels of a canvas cut (an expanded group and the
// groups around it). The page holds the graph; this holds the layout library and the cache, so
// layout stays on the server. Open to members (it reads nothing stored for them), and to holders
// of a share link for the levels of the run they may see (`?job=`, the run page's job); its
// work is bounded (limits.ts: nodes × edges, ranks spanned, time).
import { json } from '@sveltejs/kit';
import { layoutAccess } from '$lib/server/access';
import { layoutFor } from '$lib/server/api/graph/layout';
import { handleApi } from '$lib/server/http';
import type { RequestHandler } from './$types';

export const POST: RequestHandler = handleApi(async (event) => {
	const access = await layoutAccess(event, event.params.ws);
	return json(await layoutFor(access.run, event.request));
});
