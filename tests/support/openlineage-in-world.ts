// A workspace that receives OpenLineage events: the real jaffle-shop deployed (warehouse `main`,
// default database `jaffle_shop`, declaring the OpenLineage namespace `duckdb://jaffle_shop`),
// folders `etl` (alice writes, bob reads) and `secret` (dave writes, nobody else reads), carol a
// member with no folder, eve a member of another workspace; tokens minted through the API.
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { sql } from 'drizzle-orm';
import { expect } from 'vitest';
import { bootstrap } from '../../src/lib/server/bootstrap';
import { setDatabase, type Database } from '../../src/lib/server/db';
import { ApiClient, login, useInstanceAdmin, type ApiResponse } from './api';
import { fixture } from './fixtures';
import { OPENLINEAGE_REFERENCE } from './openlineage-schemas';

export const WS = 'acme';
export const OTHER_WS = 'other';
export const JAFFLE = 'f/analytics/jaffle';
export const WAREHOUSE_NAMESPACE = 'duckdb://jaffle_shop';
export const PRODUCER = 'https://github.com/OpenLineage/OpenLineage/tree/1.54.0/client/python';
export const RUN_EVENT_URL = 'https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent';
export const FACET = {
	columnLineage: 'https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json#/$defs/ColumnLineageDatasetFacet',
	schema: 'https://openlineage.io/spec/facets/1-2-0/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet',
	sql: 'https://openlineage.io/spec/facets/1-1-0/SQLJobFacet.json#/$defs/SQLJobFacet',
	jobType: 'https://openlineage.io/spec/facets/2-0-4/JobTypeJobFacet.json#/$defs/JobTypeJobFacet',
	parent: 'https://openlineage.io/spec/facets/1-2-0/ParentRunFacet.json#/$defs/ParentRunFacet',
	errorMessage: 'https://openlineage.io/spec/facets/1-0-1/ErrorMessageRunFacet.json#/$defs/ErrorMessageRunFacet'
} as const;

export type Who = 'root' | 'alice' | 'bob' | 'carol' | 'dave' | 'eve' | 'anon';

export interface OlWorld {
	database: Database;
	c: Record<Who, ApiClient>;
	token(user: Who, scopes: string[], ws?: string): Promise<ApiClient>;
	manifest: any;
	restoreEnv(): void;
}

async function ok(p: Promise<{ status: number; body: unknown }>): Promise<any> {
	const r = await p;
	expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
	return r.body;
}

function form(fields: Record<string, string | Uint8Array>, names: Record<string, string>): FormData {
	const f = new FormData();
	for (const [k, v] of Object.entries(fields)) {
		if (typeof v === 'string') f.set(k, v);
		else f.set(k, new Blob([v as Uint8Array<ArrayBuffer>]), names[k]);
	}
	return f;
}

export async function buildOlWorld(database: Database): Promise<OlWorld> {
	setDatabase(database);
	const savedSchemas = process.env.TRIBUTARY_OPENLINEAGE_SCHEMAS;
	process.env.TRIBUTARY_OPENLINEAGE_SCHEMAS = OPENLINEAGE_REFERENCE;
	const restoreAdmin = useInstanceAdmin({ username: 'root', password: 'root-password-1' });
	await bootstrap(database, { log: () => {} });
	const root = await login('root', 'root-password-1');
	await ok(root.post('/api/workspaces', { id: WS, name: 'Acme' }));
	await ok(root.post('/api/workspaces', { id: OTHER_WS, name: 'Other' }));
	for (const u of ['alice', 'bob', 'carol', 'dave']) await ok(root.post(`/api/w/${WS}/users`, { username: u, password: `${u}-password-1` }));
	await ok(root.post(`/api/w/${OTHER_WS}/users`, { username: 'eve', password: 'eve-password-1' }));
	await ok(root.post(`/api/w/${WS}/folders`, { name: 'analytics', readers: ['u/bob'], writers: ['u/alice'] }));
	await ok(root.post(`/api/w/${WS}/folders`, { name: 'etl', readers: ['u/bob'], writers: ['u/alice'] }));
	await ok(root.post(`/api/w/${WS}/folders`, { name: 'secret', readers: [], writers: ['u/dave'] }));
	await ok(root.post(`/api/w/${WS}/warehouses`, { name: 'main', default_database: 'jaffle_shop', settings: { openlineage_namespace: WAREHOUSE_NAMESPACE } }));
	const c: OlWorld['c'] = {
		root,
		alice: await login('alice'),
		bob: await login('bob'),
		carol: await login('carol'),
		dave: await login('dave'),
		eve: await login('eve'),
		anon: new ApiClient()
	};
	const dir = fixture('jaffle-shop-1.12-duckdb-docs-generate');
	const index = fixture('constructed-index', 'jaffle-shop-1.12', 'index');
	const manifestBytes = new Uint8Array(readFileSync(`${dir}/manifest.json`));
	await ok(
		c.alice.call('POST', `/api/w/${WS}/scripts/dbt/deploy`, {
			form: form(
				{
					path: JAFFLE,
					manifest: manifestBytes,
					column_lineage: new Uint8Array(readFileSync(`${index}/dbt.column_lineage.parquet`)),
					node_columns: new Uint8Array(readFileSync(`${index}/dbt.node_columns.parquet`))
				},
				{ manifest: 'manifest.json', column_lineage: 'dbt.column_lineage.parquet', node_columns: 'dbt.node_columns.parquet' }
			)
		})
	);
	return {
		database,
		c,
		async token(user, scopes, ws = WS) {
			const r = await c[user].post(`/api/w/${ws}/tokens`, { label: `t-${scopes.join('-') || 'all'}`, scopes });
			expect(r.status, JSON.stringify(r.body)).toBe(201);
			return new ApiClient().withBearer(r.body.token);
		},
		manifest: JSON.parse(new TextDecoder().decode(manifestBytes)),
		restoreEnv() {
			restoreAdmin();
			if (savedSchemas === undefined) delete process.env.TRIBUTARY_OPENLINEAGE_SCHEMAS;
			else process.env.TRIBUTARY_OPENLINEAGE_SCHEMAS = savedSchemas;
		}
	};
}

// ─── Events, written as the spec's examples write them ─────────────────────────────────────

export interface DatasetSpec {
	namespace: string;
	name: string;
	facets?: Record<string, unknown>;
}

export function runEvent(o: {
	type?: string | null;
	runId?: string;
	time?: string;
	job: { namespace: string; name: string; facets?: Record<string, unknown> };
	inputs?: DatasetSpec[];
	outputs?: DatasetSpec[];
	runFacets?: Record<string, unknown>;
}): Record<string, any> {
	const e: Record<string, any> = {
		eventTime: o.time ?? new Date().toISOString(),
		producer: PRODUCER,
		schemaURL: RUN_EVENT_URL,
		run: { runId: o.runId ?? randomUUID(), ...(o.runFacets ? { facets: o.runFacets } : {}) },
		job: o.job,
		// Copies: a test that breaks one event must not break the datasets the next one shares.
		inputs: structuredClone(o.inputs ?? []),
		outputs: structuredClone(o.outputs ?? [])
	};
	if (o.type !== null) e.eventType = o.type ?? 'COMPLETE';
	return e;
}

const base = (kind: keyof typeof FACET) => ({ _producer: PRODUCER, _schemaURL: FACET[kind] });

/** A columnLineage facet: output column → [input dataset, field, transformation subtype | 'INDIRECT:<subtype>'][]. */
export function columnLineage(fields: Record<string, [DatasetSpec, string, string][]>, dataset?: [DatasetSpec, string, string][]): Record<string, unknown> {
	const input = ([d, field, t]: [DatasetSpec, string, string]) => {
		const [type, subtype] = t.startsWith('INDIRECT:') ? ['INDIRECT', t.slice(9)] : ['DIRECT', t];
		return { namespace: d.namespace, name: d.name, field, transformations: [{ type, subtype }] };
	};
	return {
		...base('columnLineage'),
		fields: Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, { inputFields: v.map(input) }])),
		...(dataset ? { dataset: dataset.map(input) } : {})
	};
}

export function schemaFacet(fields: [string, string][]): Record<string, unknown> {
	return { ...base('schema'), fields: fields.map(([name, type]) => ({ name, type })) };
}

export function errorFacet(message: string, stackTrace: string): Record<string, unknown> {
	return { ...base('errorMessage'), message, programmingLanguage: 'JAVA', stackTrace };
}

export function parentFacet(runId: string, job: { namespace: string; name: string }): Record<string, unknown> {
	return { ...base('parent'), run: { runId }, job };
}

export function sqlFacet(query: string): Record<string, unknown> {
	return { ...base('sql'), query };
}

export function jobTypeFacet(integration: string, jobType: string): Record<string, unknown> {
	return { ...base('jobType'), processingType: 'BATCH', integration, jobType };
}

export const LINEAGE_URL = `/api/w/${WS}/openlineage/api/v1/lineage`;

export function send(c: ApiClient, event: unknown, opts: { gzip?: boolean; contentType?: string; ws?: string } = {}): Promise<ApiResponse> {
	const text = typeof event === 'string' ? event : JSON.stringify(event);
	const url = opts.ws ? `/api/w/${opts.ws}/openlineage/api/v1/lineage` : LINEAGE_URL;
	const body = opts.gzip ? gzipSync(text) : text;
	return c.call('POST', url, {
		raw: { body: body as BodyInit, contentType: opts.contentType ?? 'application/json' },
		headers: opts.gzip ? { 'content-encoding': 'gzip' } : {}
	});
}

/** Rows the receiver wrote, counted table by table (a refused event must change none). */
export async function storedCounts(database: Database): Promise<Record<string, number>> {
	const [r] = await database.rows<Record<string, unknown>>(
		sql`select (select count(*) from openlineage_event)::int as events, (select count(*) from openlineage_job)::int as jobs,
		           (select count(*) from job where kind = 'openlineage')::int as runs, (select count(*) from script where language = 'openlineage')::int as versions,
		           (select count(*) from producer_column_lineage)::int as column_rows, (select count(*) from asset_usage)::int as usage,
		           (select count(*) from openlineage_dataset)::int as datasets, (select count(*) from dbt_run_progress)::int as progress`
	);
	return Object.fromEntries(Object.entries(r).map(([k, v]) => [k, Number(v)]));
}
