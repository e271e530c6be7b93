// GET /api/admin/stats: what this process holds in memory (graph and layout caches) and what the
// instance shares through its database (queue depth, live workers, connections), for operators
// running more than one process. Instance admins only.
import { json } from '@sveltejs/kit';
import { requireAuth, requireInstanceStats } from '$lib/server/access';
import { getDatabase } from '$lib/server/db';
import { instanceStats } from '$lib/server/instance-stats';
import { handleApi } from '$lib/server/http';
import type { RequestHandler } from './$types';

export const GET: RequestHandler = handleApi(async (event) => {
	requireInstanceStats(requireAuth(event));
	return json(await instanceStats(await getDatabase()), { headers: { 'cache-control': 'private, no-store' } });
});
