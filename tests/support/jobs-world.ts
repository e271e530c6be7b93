// One workspace with every kind of caller the job gates distinguish, and a family of jobs to
// read: built through the admin API (users, groups, folders, tokens) and the job repo (runs come
// from a later issue, so their rows are inserted directly).
import { expect } from 'vitest';
import { bootstrap } from '../../src/lib/server/bootstrap';
import { setDatabase, type Database } from '../../src/lib/server/db';
import { insertJob, upsertProgress, type NewJob } from '../../src/lib/server/repo/jobs';
import { ApiClient } from './api';

export const WS = 'acme';
export const OTHER_WS = 'other';
export const ROOT = { username: 'root', password: 'root-password-1' };
export const SECRET_PATH = 'f/secret/proj';

/** What the author wrote, planted in args, result and log: a redacted answer contains none. */
export const AUTHORED_MARKERS = ['v-secret-api-key', 'select secret_column', 'models/secret_orders.sql'];

export interface JobWorld {
	database: Database;
	/** Signed-in clients by username, plus `anon`. */
	c: Record<'root' | 'wsadmin' | 'carl' | 'rita' | 'gina' | 'wendy' | 'olga' | 'sam' | 'anon', ApiClient>;
	/**
	 * Jobs of `acme` (P → R → C → G is a parent chain, S is R's sibling under P, U is olga's own
	 * job, X is a job of the other workspace at the same path).
	 */
	jobs: Record<'P' | 'R' | 'C' | 'G' | 'S' | 'U' | 'X', string>;
	/** Mints an API token for a signed-in user of `acme` with these scopes. */
	token(user: keyof JobWorld['c'], scopes: string[], ws?: string): Promise<ApiClient>;
	restoreEnv(): void;
}

const USERS = {
	wsadmin: { is_admin: true },
	carl: {},
	rita: {},
	gina: {},
	wendy: {},
	olga: {}
} as const;

export async function login(username: string, password = `${username}-password-1`): Promise<ApiClient> {
	const c = new ApiClient();
	const r = await c.post('/api/auth/login', { username, password });
	expect(r.status, JSON.stringify(r.body)).toBe(200);
	return c;
}

async function ok(p: Promise<{ status: number; body: unknown }>): Promise<void> {
	const r = await p;
	expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
}

/** A clock for inserted jobs: each call is one second after the previous (stable ordering). */
export function jobClock(start = Date.now() - 24 * 3600_000): () => Date {
	let t = start;
	return () => new Date((t += 1000));
}

export async function buildJobWorld(database: Database): Promise<JobWorld> {
	const saved = {
		user: process.env.TRIBUTARY_ADMIN_USER,
		password: process.env.TRIBUTARY_ADMIN_PASSWORD,
		secret: process.env.TRIBUTARY_SECRET
	};
	setDatabase(database);
	process.env.TRIBUTARY_ADMIN_USER = ROOT.username;
	process.env.TRIBUTARY_ADMIN_PASSWORD = ROOT.password;
	delete process.env.TRIBUTARY_SECRET;
	await bootstrap(database);
	const root = await login(ROOT.username, ROOT.password);
	await ok(root.post('/api/workspaces', { id: WS, name: 'Acme' }));
	await ok(root.post('/api/workspaces', { id: OTHER_WS, name: 'Other' }));
	for (const [u, extra] of Object.entries(USERS)) {
		await ok(root.post(`/api/w/${WS}/users`, { username: u, password: `${u}-password-1`, ...extra }));
	}
	await ok(root.post(`/api/w/${OTHER_WS}/users`, { username: 'sam', password: 'sam-password-1' }));
	await ok(root.post(`/api/w/${WS}/groups`, { name: 'analysts', members: ['gina'] }));
	await ok(root.post(`/api/w/${WS}/folders`, { name: 'secret', readers: ['u/rita', 'g/analysts'], writers: ['u/wendy'] }));
	// A folder whose name is a prefix of `secret`: its grants must not leak into `secret`.
	await ok(root.post(`/api/w/${WS}/folders`, { name: 'sec', readers: ['u/olga'], writers: [] }));

	const c = {
		root,
		wsadmin: await login('wsadmin'),
		carl: await login('carl'),
		rita: await login('rita'),
		gina: await login('gina'),
		wendy: await login('wendy'),
		olga: await login('olga'),
		sam: await login('sam'),
		anon: new ApiClient()
	};

	const at = jobClock();
	const base = (over: Partial<NewJob>): NewJob => ({
		workspace: WS,
		kind: 'run',
		scriptPath: SECRET_PATH,
		scriptHash: 42n,
		createdBy: 'wendy',
		permissionedAs: 'u/wendy',
		status: 'success',
		createdAt: at(),
		...over
	});
	const P = await database.db.transaction((tx) => insertJob(tx, base({})));
	// R: created by carl, who has no grant on the folder (a creator is entitled to the run, not
	// to the project), and carrying authored material in every payload field.
	const R = await database.db.transaction((tx) =>
		insertJob(
			tx,
			base({
				createdBy: 'carl',
				permissionedAs: 'u/carl',
				parentJob: P,
				status: 'failure',
				args: { command: 'build', select: ['orders'], vars: { api_key: 'v-secret-api-key' } },
				result: {
					nodes: [
						{
							unique_id: 'model.p.orders',
							status: 'error',
							outcome: 'failed',
							message: 'Database Error in model orders (models/secret_orders.sql)\n  Binder Error: Referenced column "secret_column" not found in FROM clause!',
							compiled_code: 'select secret_column from raw',
							original_file_path: 'models/secret_orders.sql'
						}
					],
					totals: { failed: 1 }
				},
				logs: 'compiling models/secret_orders.sql\nselect secret_column from raw\nDatabase Error\n'
			})
		)
	);
	const C = await database.db.transaction((tx) => insertJob(tx, base({ parentJob: R })));
	const G = await database.db.transaction((tx) => insertJob(tx, base({ parentJob: C })));
	const S = await database.db.transaction((tx) => insertJob(tx, base({ parentJob: P })));
	const U = await database.db.transaction((tx) =>
		insertJob(tx, base({ scriptPath: 'u/olga/mine', scriptHash: 7n, createdBy: 'olga', permissionedAs: 'u/olga', kind: 'deploy' }))
	);
	const X = await database.db.transaction((tx) => insertJob(tx, base({ workspace: OTHER_WS, createdBy: 'sam', permissionedAs: 'u/sam' })));
	await upsertProgress(database, WS, R, [
		{ assetKind: 'dbt', assetPath: 'main/analytics/orders', status: 'failed', error: 'Database Error in model orders' },
		{ assetKind: 'dbt', assetPath: 'main/analytics/customers', status: 'materialized', rowCount: 12 },
		{ assetKind: 'dbt', assetPath: 'main/analytics/payments', status: 'running' }
	]);

	const clients = c as JobWorld['c'];
	return {
		database,
		c: clients,
		jobs: { P, R, C, G, S, U, X },
		async token(user, scopes, ws = WS) {
			const r = await clients[user].post(`/api/w/${ws}/tokens`, { label: `t-${scopes.join('-') || 'all'}`, scopes });
			expect(r.status, JSON.stringify(r.body)).toBe(201);
			return new ApiClient().withBearer(r.body.token);
		},
		restoreEnv() {
			for (const [k, v] of [
				['TRIBUTARY_ADMIN_USER', saved.user],
				['TRIBUTARY_ADMIN_PASSWORD', saved.password],
				['TRIBUTARY_SECRET', saved.secret]
			] as const) {
				if (v === undefined) delete process.env[k];
				else process.env[k] = v;
			}
		}
	};
}

/** Changes one hex digit of a share token's MAC (position `i` of the 64, its last part in either format). */
export function tamper(token: string, i = 20): string {
	const at = token.length - 64 + i;
	return token.slice(0, at) + (token[at] === '0' ? '1' : '0') + token.slice(at + 1);
}
