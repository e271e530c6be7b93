import { describe, expect, it } from 'vitest';
import { externalAssetPath, externalDatasetOf, jobLineageOf, jobScriptPath, normalizeNamespace, producerKindOf, resolveDataset, schemaFieldsOf } from './openlineage-in';

const resolver = {
	workspace: 'acme',
	warehouses: [
		{ name: 'main', defaultDatabase: 'analytics', openlineageNamespace: 'snowflake://acme-xy123' },
		{ name: 'bq', defaultDatabase: null, openlineageNamespace: 'bigquery' }
	]
};

describe('datasets as assets', () => {
	it('a warehouse that declares the namespace turns db.schema.table into its relation, case-insensitively', () => {
		expect(resolveDataset({ namespace: 'snowflake://ACME-XY123/', name: 'ANALYTICS.PUBLIC.ORDERS' }, resolver)).toEqual({ kind: 'dbt', path: 'main/public/orders' });
		expect(resolveDataset({ namespace: 'snowflake://acme-xy123', name: 'OTHER_DB.PUBLIC.ORDERS' }, resolver)).toEqual({ kind: 'dbt', path: 'main/other_db.public/orders' });
		expect(resolveDataset({ namespace: 'bigquery', name: 'proj.ds.t' }, resolver)).toEqual({ kind: 'dbt', path: 'bq/proj.ds/t' });
		expect(resolveDataset({ namespace: 'snowflake://acme-xy123', name: 'public.orders' }, resolver)).toEqual({ kind: 'dbt', path: 'main/public/orders' });
	});

	it("Tributary's own export names round-trip onto the same assets; another workspace's do not", () => {
		expect(resolveDataset({ namespace: 'dbt://acme/main', name: 'analytics.public.orders' }, resolver)).toEqual({ kind: 'dbt', path: 'main/public/orders' });
		expect(resolveDataset({ namespace: 'ducklake://acme/main', name: 'report' }, resolver)).toEqual({ kind: 'ducklake', path: 'main/report' });
		expect(resolveDataset({ namespace: 'dbt://other/main', name: 'analytics.public.orders' }, resolver).kind).toBe('openlineage');
	});

	it('anything else is external, its path telling namespaces with slashes apart', () => {
		const a = externalAssetPath({ namespace: 'hdfs://nn:8020/a', name: 'b/c' });
		const b = externalAssetPath({ namespace: 'hdfs://nn:8020', name: 'a/b/c' });
		expect(a).not.toBe(b);
		expect(externalDatasetOf(a)).toEqual({ namespace: 'hdfs://nn:8020/a', name: 'b/c' });
		expect(externalDatasetOf(b)).toEqual({ namespace: 'hdfs://nn:8020', name: 'a/b/c' });
		expect(externalAssetPath({ namespace: 's3://bucket', name: 'raw/x.parquet' })).toBe('s3://bucket/raw/x.parquet');
		expect(externalDatasetOf(externalAssetPath({ namespace: 'file', name: '/tmp/x 100%.csv' }))).toEqual({ namespace: 'file', name: '/tmp/x 100%.csv' });
		expect(normalizeNamespace('Postgres://DB.Example:5432/')).toBe('postgres://db.example:5432');
	});
});

describe('jobs as producers', () => {
	it('a job path slugs the namespace and name into segments a path may hold', () => {
		expect(jobScriptPath('etl', { namespace: 'airflow://prod', name: 'dag.task' })).toBe('f/etl/prod/dag_task');
		expect(jobScriptPath('etl', { namespace: 'default', name: '...' })).toBe('f/etl/default/x');
		const long = jobScriptPath('etl', { namespace: 'n', name: 'x'.repeat(400) }, 'abc123');
		expect(long.length).toBeLessThanOrEqual(255);
		expect(long.endsWith('-abc123')).toBe(true);
	});

	it('transformations: DIRECT IDENTITY a copy, other DIRECT a mod, INDIRECT no edge; 1-0-x by transformationType', () => {
		const f = (transformations?: { type: string; subtype?: string }[]) => ({ namespace: 'n', name: 'd', field: 'c', transformations });
		expect(producerKindOf(f([{ type: 'DIRECT', subtype: 'IDENTITY' }]), undefined)).toEqual({ edge: true, kind: 'copy' });
		expect(producerKindOf(f([{ type: 'DIRECT', subtype: 'AGGREGATION' }]), undefined)).toEqual({ edge: true, kind: 'mod' });
		expect(producerKindOf(f([{ type: 'INDIRECT', subtype: 'JOIN' }]), undefined)).toEqual({ edge: false, kind: null });
		expect(producerKindOf(f([{ type: 'INDIRECT', subtype: 'FILTER' }, { type: 'DIRECT', subtype: 'IDENTITY' }]), undefined)).toEqual({ edge: true, kind: 'copy' });
		expect(producerKindOf(f(), 'IDENTITY')).toEqual({ edge: true, kind: 'copy' });
		expect(producerKindOf(f(), 'MASKED')).toEqual({ edge: true, kind: 'mod' });
		expect(producerKindOf(f(), undefined)).toEqual({ edge: true, kind: null });
	});

	it('lineage of an event: reads, writes, column rows capped, the dataset-wide list read only', () => {
		const src = { namespace: 's3://b', name: 'in' };
		const out = {
			namespace: 's3://b',
			name: 'out',
			facets: {
				columnLineage: {
					fields: {
						a: { inputFields: [{ ...src, field: 'x', transformations: [{ type: 'DIRECT', subtype: 'IDENTITY' }] }] },
						b: { inputFields: [{ ...src, field: 'y' }, { namespace: 's3://b', name: 'other', field: 'z' }], transformationType: 'IDENTITY' }
					},
					dataset: [{ namespace: 's3://b', name: 'filterer', field: 'k', transformations: [{ type: 'INDIRECT', subtype: 'FILTER' }] }]
				}
			}
		};
		const l = jobLineageOf([src], [out], (d) => resolveDataset(d, resolver), 2);
		expect(l.rows.map((r) => `${r.inputAssetPath}.${r.inputColumn}>${r.outputColumn}:${r.lineageKind}`)).toEqual(['s3://b/in.x>a:copy', 's3://b/in.y>b:copy']);
		expect(l.droppedEdges).toBe(1);
		expect(l.indirectEdges).toBe(1);
		expect(l.uses.map((u) => `${u.access} ${u.assetPath}`).sort()).toEqual(['r s3://b/filterer', 'r s3://b/in', 'r s3://b/other', 'w s3://b/out']);
	});

	it('schema facet fields, nested structs flattened', () => {
		expect(schemaFieldsOf({ namespace: 'n', name: 'd', facets: { schema: { fields: [{ name: 'a', type: 'INT' }, { name: 's', type: 'STRUCT', fields: [{ name: 'b' }] }] } } })).toEqual([
			{ name: 'a', type: 'INT' },
			{ name: 's', type: 'STRUCT' },
			{ name: 's.b' }
		]);
	});
});
