// Worker presence and the queue's depth, for the instance admin's stats (GET /api/admin/stats).
import { sql } from 'drizzle-orm';
import { toNumber, type Database } from '../db';

export interface WorkerBeat {
	workerId: string;
	host: string;
	pid: number;
	slots: number;
	running: number;
}

export async function beatWorker(database: Database, w: WorkerBeat): Promise<void> {
	await database.rows(
		sql`insert into worker_presence (worker_id, host, pid, slots, running) values (${w.workerId}, ${w.host}, ${w.pid}, ${w.slots}, ${w.running})
		    on conflict (worker_id) do update set running = excluded.running, slots = excluded.slots, beat_at = now()`
	);
}

export async function removeWorker(database: Database, workerId: string): Promise<void> {
	await database.rows(sql`delete from worker_presence where worker_id = ${workerId}`);
}

export interface WorkersSeen {
	alive: number;
	/** Jobs the live workers say they are running, and the slots they have. */
	running: number;
	slots: number;
}

/** Workers that beat within `staleSeconds`; older rows (a worker killed without stopping) are dropped. */
export async function liveWorkers(database: Database, staleSeconds: number): Promise<WorkersSeen> {
	await database.rows(sql`delete from worker_presence where beat_at < now() - make_interval(secs => ${staleSeconds * 10}::double precision)`);
	const [r] = await database.rows<{ alive: unknown; running: unknown; slots: unknown }>(
		sql`select count(*)::int as alive, coalesce(sum(running), 0)::int as running, coalesce(sum(slots), 0)::int as slots
		      from worker_presence where beat_at >= now() - make_interval(secs => ${staleSeconds}::double precision)`
	);
	return { alive: toNumber(r?.alive), running: toNumber(r?.running), slots: toNumber(r?.slots) };
}

/** Jobs waiting and running, by kind. */
export async function queueDepth(database: Database): Promise<Record<string, { queued: number; running: number }>> {
	const rows = await database.rows<{ kind: string; status: string; n: unknown }>(
		sql`select kind, status, count(*)::int as n from job where status in ('queued', 'running') group by kind, status`
	);
	const out: Record<string, { queued: number; running: number }> = {};
	for (const r of rows) {
		out[r.kind] ??= { queued: 0, running: 0 };
		out[r.kind][r.status as 'queued' | 'running'] = toNumber(r.n);
	}
	return out;
}

/** Connections open to this database (every process's), and how many are running a query. */
export async function databaseConnections(database: Database): Promise<{ open: number; active: number } | null> {
	if (database.kind !== 'postgres') return null;
	const [r] = await database.rows<{ open: unknown; active: unknown }>(
		sql`select count(*)::int as open, count(*) filter (where state = 'active')::int as active
		      from pg_stat_activity where datname = current_database()`
	);
	return { open: toNumber(r?.open), active: toNumber(r?.active) };
}
