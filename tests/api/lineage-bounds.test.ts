// Lineage inference that shares fairly, on both databases, through the real deploy route and the
// real worker: a deploy full of pathological SQL has those models marked too_complex from the scan
// before parsing (the reason and the figure in the job's log and in each model's description) and
// the rest analysed inside the job's time budget; lineage jobs are claimed fairly across
// workspaces, so on one worker with one lineage slot a second workspace's single-model job ends
// before the first workspace's backlog of 200 models (ten jobs).
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { COMPLEXITY_LIMITS, tooComplex } from '../../src/lib/lineage/infer/complexity';
import { bootstrap } from '../../src/lib/server/bootstrap';
import { setDatabase, type Database } from '../../src/lib/server/db';
import { generateProject, type GeneratedProject } from '../../src/lib/server/demo/generator';
import { insertJob } from '../../src/lib/server/repo/jobs';
import { claimNextJob } from '../../src/lib/server/repo/queue';
import { jobBudgetMs } from '../../src/lib/server/runner/lineage-job';
import { Worker } from '../../src/lib/server/runner/worker';
import { runnerIngest } from '../../src/lib/server/runner-ingest';
import { ApiClient } from '../support/api';
import { testBackends } from '../support/db';
import { pathologicalSql } from '../support/pathological-sql';

// Lineage jobs start inference threads (through tsx under vitest): slow on a loaded 2-core machine.
vi.setConfig({ testTimeout: 300_000 });

const ALPHA = 'alpha';
const BETA = 'beta';
const GAMMA = 'gamma';
/** The fairness test's two workspaces: no lineage job of theirs was claimed before it. */
const BUSY = 'busy';
const QUIET = 'quiet';

function deployForm(path: string, project: GeneratedProject): FormData {
	const f = new FormData();
	f.set('path', path);
	f.set('descriptor', 'profile:\n  warehouse: main\n');
	f.set('manifest', new Blob([JSON.stringify(project.manifest)]), 'manifest.json');
	f.set('catalog', new Blob([JSON.stringify(project.catalog)]), 'catalog.json');
	return f;
}

/** Models with compiled SQL that the lineage job infers (an ephemeral one is inlined, not inferred). */
const inferredModels = (p: GeneratedProject) =>
	Object.values(p.manifest.nodes as Record<string, any>).filter((n) => n.resource_type === 'model' && n.config?.materialized !== 'ephemeral' && typeof n.compiled_code === 'string');

describe('jobBudgetMs', () => {
	it('grows with the models, and leaves a fifth of the time before the deadline for storing', () => {
		expect(jobBudgetMs(40, 600_000, 10_000)).toBe(10_000 + 20_000 + 40 * 100);
		expect(jobBudgetMs(3000, 600_000, 10_000)).toBe(330_000);
		expect(jobBudgetMs(10_000, 600_000, 10_000)).toBe(480_000);
		expect(jobBudgetMs(1, -5, 10_000)).toBe(0);
	});
});

describe.each(testBackends())('lineage inference bounded and shared fairly, on $name', (backend) => {
	let database: Database;
	const admin = new ApiClient();
	let worker: Worker | null = null;

	const startWorker = () => {
		// No run slot: one lineage slot, as a worker has by default.
		worker = new Worker({ database, ingest: runnerIngest, slots: 0, lineageSlots: 1, pollMs: 30, heartbeatMs: 200 }).start();
	};
	const stopWorker = async () => {
		await worker?.stop();
		worker = null;
	};

	beforeAll(async () => {
		database = await backend.open();
		setDatabase(database);
		process.env.TRIBUTARY_ADMIN_USER = 'admin';
		process.env.TRIBUTARY_ADMIN_PASSWORD = 'admin-password-1';
		await bootstrap(database, { log: () => {} });
		expect((await admin.post('/api/auth/login', { username: 'admin', password: 'admin-password-1' })).status).toBe(200);
		for (const ws of [ALPHA, BETA, GAMMA, BUSY, QUIET]) {
			expect((await admin.post('/api/workspaces', { id: ws, name: ws })).status).toBeLessThan(300);
			expect((await admin.post(`/api/w/${ws}/warehouses`, { name: 'main', default_database: 'analytics' })).status).toBeLessThan(300);
		}
	});
	afterAll(async () => {
		await stopWorker();
		await database?.close();
	});

	const deploy = async (ws: string, path: string, project: GeneratedProject) => {
		const r = await admin.call('POST', `/api/w/${ws}/scripts/dbt/deploy`, { form: deployForm(path, project) });
		expect(r.status, JSON.stringify(r.body)).toBe(201);
		expect(r.body.lineage_job_id).toMatch(/^[0-9a-f-]{36}$/);
		return r.body as { job_id: string; lineage_job_id: string; column_lineage: { models: { pending: number } } };
	};

	async function waitJob(ws: string, id: string, timeoutMs = 240_000): Promise<any> {
		const until = Date.now() + timeoutMs;
		for (;;) {
			const r = await admin.get(`/api/w/${ws}/jobs/get/${id}`);
			expect(r.status).toBe(200);
			if (r.body.status !== 'queued' && r.body.status !== 'running') return r.body;
			if (Date.now() > until) throw new Error(`job ${id} still ${r.body.status} after ${timeoutMs} ms`);
			await new Promise((res) => setTimeout(res, 50));
		}
	}

	it('claims lineage jobs round the workspaces, oldest first within one; never-served workspaces first', async () => {
		const queue = async (ws: string) =>
			database.db.transaction((tx) =>
				insertJob(tx, { workspace: ws, kind: 'lineage', scriptPath: 'u/admin/p', scriptHash: 1n, createdBy: 'admin', permissionedAs: 'u/admin', status: 'queued' })
			);
		const a = [await queue(ALPHA), await queue(ALPHA), await queue(ALPHA)];
		const b = await queue(BETA);
		const a4 = await queue(ALPHA);
		const c = await queue(GAMMA);
		const order: string[] = [];
		for (;;) {
			const job = await claimNextJob(database, 'claimer', ['lineage']);
			if (!job) break;
			order.push(job.id);
		}
		const name = new Map([...a.map((id, k) => [id, `alpha${k + 1}`] as const), [a4, 'alpha4'], [b, 'beta1'], [c, 'gamma1']]);
		// First come first served at first; after alpha's first, the two workspaces never served go
		// ahead of alpha's backlog, whose jobs then keep their order.
		expect(order.map((id) => name.get(id))).toEqual(['alpha1', 'beta1', 'gamma1', 'alpha2', 'alpha3', 'alpha4']);
		// Settled, so no worker below takes them for its own or reaps them.
		await database.rows(sql`update job set status = 'canceled', completed_at = now() where id = any(${sql.param(order)}::uuid[])`);
	});

	it('a deploy full of pathological SQL: those models too_complex with the figure that tripped, the rest analysed within the budget', async () => {
		const project = await generateProject({ models: 40, columnEdges: 400, seed: 5 });
		const targets = inferredModels(project);
		// Four of each shape (six shapes): 24 models that the scan stops, each a distinct text.
		const bad = Array.from({ length: 4 }, (_, v) => pathologicalSql({ from: 'analytics.raw.orders', variant: v })).flat();
		expect(targets.length).toBeGreaterThan(bad.length);
		const replaced = new Map<string, (typeof bad)[number]>();
		bad.forEach((b, k) => {
			targets[k].compiled_code = b.sql;
			replaced.set(targets[k].unique_id, b);
		});
		const d = await deploy(ALPHA, 'u/admin/absurd', project);
		expect(d.column_lineage.models.pending).toBe(targets.length);
		startWorker();
		const job = await waitJob(ALPHA, d.lineage_job_id);
		await stopWorker();

		expect(job.status).toBe('success');
		expect(job.result.models).toMatchObject({ too_complex: bad.length, failed: 0 });
		expect(job.result.models.analyzed + job.result.models.partial).toBe(targets.length - bad.length);
		// Every model got its outcome inside the budget the job set itself.
		expect(job.result.over_budget).toBe(0);
		expect(job.result.budget_seconds).toBe(jobBudgetMs(targets.length, Infinity) / 1000);
		for (const [node, b] of replaced) {
			const message = tooComplex(b.sql, 'duckdb')!.message;
			expect(message).toMatch(new RegExp(`over the limit of ${COMPLEXITY_LIMITS[b.trips].toLocaleString('en-US')} \\(checked before parsing\\)$`));
			expect(job.logs).toContain(`too complex: ${node}: ${message}`);
		}

		// The details pane's read of one of them: its outcome, the reason and the figure.
		const [node, b] = [...replaced.entries()].find(([, x]) => x.trips === 'depth')!;
		const [row] = await database.rows<{ p: string }>(sql`select asset_path as p from dbt_node where workspace = ${ALPHA} and script_path = 'u/admin/absurd' and unique_id = ${node}`);
		const relation = await admin.get(`/w/${ALPHA}/relation?path=${encodeURIComponent(row.p)}`);
		expect(relation.status).toBe(200);
		expect(relation.body.column_lineage).toMatchObject({ source: 'inferred', outcome: 'too_complex', message: tooComplex(b.sql, 'duckdb')!.message });
		expect(relation.body.column_lineage.message).toMatch(/nested 100,00\d deep, over the limit of 100/);
	});

	it("one worker, one lineage slot: a second workspace's single-model job ends before the first's 200-model backlog", async () => {
		await stopWorker();
		// Alpha's backlog: ten deploys of a 20-model project, queued before beta's one-model deploy.
		const twenty = await generateProject({ models: 20, columnEdges: 200, seed: 6 });
		expect(inferredModels(twenty)).toHaveLength(20);
		const backlog: string[] = [];
		for (let k = 0; k < 10; k++) backlog.push((await deploy(BUSY, `u/admin/backlog_${k}`, twenty)).lineage_job_id);
		const one = await generateProject({ models: 1, seed: 7 });
		expect(inferredModels(one)).toHaveLength(1);
		const first = (await deploy(QUIET, 'u/admin/first', one)).lineage_job_id;

		startWorker();
		const ends = new Map<string, any>();
		for (const id of [first, ...backlog]) ends.set(id, await waitJob(id === first ? QUIET : BUSY, id));
		await stopWorker();
		for (const j of ends.values()) expect(j.status).toBe('success');

		const rows = await database.rows<{ id: string; ws: string; started: unknown; completed: unknown }>(
			sql`select id::text as id, workspace as ws, extract(epoch from started_at)::float8 as started, extract(epoch from completed_at)::float8 as completed
			      from job where id = any(${sql.param([first, ...backlog])}::uuid[]) order by started_at, id`
		);
		// The busy workspace's oldest job had the slot first; the quiet one's came next, not after the backlog.
		expect(rows.map((r) => (r.id === first ? QUIET : BUSY))).toEqual([BUSY, QUIET, ...Array(9).fill(BUSY)]);
		const quietDone = Number(rows[1].completed);
		const busyDone = rows.filter((r) => r.id !== first).map((r) => Number(r.completed));
		expect(busyDone.filter((t) => t < quietDone)).toHaveLength(1);
		expect(ends.get(first).result.models.analyzed + ends.get(first).result.models.partial).toBe(1);
	});
});
