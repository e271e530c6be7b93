// The instance stats' answer (GET /api/admin/stats): per process (caches, memory) and shared
// through the database (queue, workers, connections).
import type { Database } from './db';
import { graphCacheOf } from './graph-cache';
import { layoutCacheStats } from './api/graph/canvas';
import { databaseConnections, liveWorkers, queueDepth } from './repo/workers';
import type { InstanceStats } from '$lib/types/admin';

const staleSeconds = () => {
	const n = Number(process.env.TRIBUTARY_WORKER_STALE_S);
	return Number.isFinite(n) && n > 0 ? n : 30;
};

export async function instanceStats(database: Database): Promise<InstanceStats> {
	const cache = graphCacheOf(database).stats;
	const memory = process.memoryUsage();
	return {
		process: { pid: process.pid, rss_bytes: memory.rss, heap_used_bytes: memory.heapUsed, uptime_s: Math.round(process.uptime()) },
		graph_cache: {
			entries: cache.entries,
			bytes: cache.bytes,
			max_bytes: cache.maxBytes,
			hits: cache.hits,
			misses: cache.misses,
			evictions: cache.evictions,
			unstable: cache.unstable
		},
		layout_cache: layoutCacheStats(),
		queue: await queueDepth(database),
		workers: await liveWorkers(database, staleSeconds()),
		database: {
			kind: database.kind,
			pool_max: database.kind === 'postgres' ? Number(process.env.TRIBUTARY_DB_POOL ?? 10) : null,
			connections: await databaseConnections(database)
		}
	};
}
