/** GET /api/admin/stats. */
export interface InstanceStats {
	/** The process that answered: caches and memory are per process. */
	process: { pid: number; rss_bytes: number; heap_used_bytes: number; uptime_s: number };
	graph_cache: { entries: number; bytes: number; max_bytes: number; hits: number; misses: number; evictions: number; unstable: number };
	layout_cache: { entries: number; max_entries: number };
	/** Jobs queued and running, by kind (shared: every process sees the same). */
	queue: Record<string, { queued: number; running: number }>;
	/** Workers that said they are alive within TRIBUTARY_WORKER_STALE_S. */
	workers: { alive: number; running: number; slots: number };
	database: { kind: 'pglite' | 'postgres'; pool_max: number | null; connections: { open: number; active: number } | null };
}
