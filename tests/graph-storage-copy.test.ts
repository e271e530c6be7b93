// The COPY write path of a graph on both databases: text-format escaping of every kind of value
// (tabs, newlines, backslashes, quotes, `\N` and `\.` as text, unicode, NULL vs ''), atomic
// replacement when the load fails at any point (server-side mid-stream, server-side after the
// data ended, our side mid-stream), and a load large enough to take several chunks / blobs.
import { createHash, randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyField, copyJson, copyRows, copyTextArray, type Database } from '../src/lib/server/db';
import {
	digestGraph,
	dumpGraph,
	graphCounts,
	graphDigest,
	nodeDigest,
	replaceGraph,
	versionKey,
	type ColumnEdgeRow,
	type GraphContent,
	type GraphKey,
	type NodeRow
} from '../src/lib/server/repo/graph';
import { insertScriptVersion } from '../src/lib/server/repo/scripts';
import { workspace } from '../src/lib/server/schema';
import { testBackends } from './support/db';
import { nodeRow } from './support/graph-rows';

const node = (uniqueId: string, extra: Partial<NodeRow> = {}): NodeRow => nodeRow(uniqueId, { name: 'm', ...extra });

const NASTY = [
	'tab\there',
	'new\nline',
	'carriage\rreturn',
	'crlf\r\n',
	'back\\slash',
	'trailing backslash\\',
	'\\N',
	'\\.',
	'line\n\\.\nafter',
	'"double" \'single\'',
	'ünïcødé ✓ 漢字 🚀',
	'{braces,commas}',
	'NULL',
	' padded ',
	'\\t literal',
	'a\u0001control'
];

function nastyGraph(): GraphContent {
	const a = 'model.p.a\twith tab';
	const b = 'model.p.b "quoted" \\ back';
	const c = 'model.p.ç 🚀\nnewline';
	const nodes: NodeRow[] = [
		node(a, {
			name: 'a\tb',
			description: '', // '' is not NULL
			tags: ['a"b', 'c,d', '{e}', 'f\\g', '', 'NULL', ' sp ', 'ü', 'x\ty'],
			testArgs: { s: 'x\ty\n\\z"', nested: [1, null, '\\N', { k: '🚀' }], empty: '' },
			columns: { 'col\twith\ttabs': 'desc\nline', 'back\\slash': '"q"', '': '' },
			columnSchema: [{ name: 'x"y', type: 'varchar(10)' }, { name: 'tab\tcol' }],
			freshness: { warn_after: { count: 1, period: 'day' } },
			rawCode: 'select 1\r\nfrom x -- trailing \\\n\\.\n',
			originalFilePath: 'models/a\tb.sql',
			uniqueKey: '["id", "ts"]',
			materializeStrategy: 'merge'
		}),
		node(b, { description: null, tags: [], rawCode: NASTY.join('\n'), testArgs: [] }),
		node(c, { resourceType: 'test', testKind: 'not_null', testColumn: 'c\tol', severity: 'warn', attachedNode: a, testArgs: {} })
	];
	const columnEdges: ColumnEdgeRow[] = [];
	NASTY.forEach((col, i) => {
		columnEdges.push({ parentUniqueId: a, parentColumn: col, childUniqueId: b, childColumn: `${col}→${i}`, lineageKind: i % 3 === 0 ? 'copy' : i % 3 === 1 ? 'mod' : 'scan', component: i % 3 === 2 ? null : i });
	});
	// A NULL lineage kind is stored as ''; other words verbatim, even odd ones.
	columnEdges.push({ parentUniqueId: b, parentColumn: 'x', childUniqueId: c, childColumn: 'y', lineageKind: '', component: null });
	columnEdges.push({ parentUniqueId: b, parentColumn: 'x', childUniqueId: c, childColumn: 'y', lineageKind: 'weird\tkind\\', component: 0 });
	columnEdges.sort((x, y) =>
		[x.parentUniqueId, x.parentColumn, x.childUniqueId, x.childColumn, x.lineageKind].join('\u0000') <
		[y.parentUniqueId, y.parentColumn, y.childUniqueId, y.childColumn, y.lineageKind].join('\u0000')
			? -1
			: 1
	);
	return { nodes, edges: [{ parent: a, child: b }, { parent: b, child: c }, { parent: 'x\ty', child: '\\N' }], columnEdges };
}

/** The digest as it was computed before the write path changed: stored digests must still match. */
function referenceDigest(g: GraphContent): string {
	const stable = (v: unknown): string => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x));
	const h = createHash('sha256');
	const nodes = [...g.nodes].sort((a, b) => (a.uniqueId < b.uniqueId ? -1 : a.uniqueId > b.uniqueId ? 1 : 0));
	h.update('nodes\n');
	for (const n of nodes) h.update(stable(n)).update('\n');
	h.update('edges\n');
	for (const e of g.edges) h.update(e.parent).update('\u0000').update(e.child).update('\n');
	if (g.columnEdges) {
		h.update('column_edges\n');
		for (const c of g.columnEdges) h.update([c.parentUniqueId, c.parentColumn, c.childUniqueId, c.childColumn, c.lineageKind].join('\u0000')).update('\n');
	}
	return h.digest('hex');
}

describe('COPY text format', () => {
	it('escapes exactly backslash, tab, newline and carriage return; NULL is \\N', () => {
		expect(copyField(null)).toBe('\\N');
		expect(copyField(undefined)).toBe('\\N');
		expect(copyField('')).toBe('');
		expect(copyField('\\N')).toBe('\\\\N');
		expect(copyField('a\tb\nc\rd\\e"f\'g')).toBe('a\\tb\\nc\\rd\\\\e"f\'g');
		expect(copyField(12n)).toBe('12');
		expect(copyField(0)).toBe('0');
		expect(copyTextArray([])).toBe('{}');
		expect(copyTextArray(['a"b', 'c\\d'])).toBe('{"a\\\\"b","c\\\\\\\\d"}');
		expect(copyJson(null)).toBe('\\N');
		expect(copyJson({ a: 'x\ty' })).toBe('{"a":"x\\\\ty"}');
	});

	it('the digest is byte for byte the one computed before', () => {
		const g = nastyGraph();
		expect(graphDigest(g)).toBe(referenceDigest(g));
		expect(graphDigest({ ...g, columnEdges: null })).toBe(referenceDigest({ ...g, columnEdges: null }));
		const big: GraphContent = {
			nodes: [node('model.p.x')],
			edges: [],
			columnEdges: Array.from({ length: 5000 }, (_, i) => ({ parentUniqueId: 'model.p.x', parentColumn: `c${i}`, childUniqueId: 'model.p.x', childColumn: `d${i}`, lineageKind: 'copy', component: 0 }))
		};
		expect(graphDigest(big)).toBe(referenceDigest(big));
		// Nodes around and over the hash buffer's size (64 KB of UTF-8, 3 bytes a unit at most),
		// multi-byte text and lone surrogates included.
		const sized = (n: number, i: number) => (i % 2 ? '→' : 'é→𝄞\ud800x').repeat(n).slice(0, n);
		const wide: GraphContent = {
			nodes: [5, 15_000, 10_000, 7_000, 21_840, 21_845, 21_846, 40_000, 70_000, 200_000].map((n, i) => node(`model.p.w${i}`, { rawCode: sized(n, i) })),
			edges: [],
			columnEdges: null
		};
		expect(graphDigest(wide)).toBe(referenceDigest(wide));
		const { nodeDigests } = digestGraph(wide);
		for (const n of wide.nodes) expect(nodeDigests.get(n), n.uniqueId).toBe(nodeDigest(n));
	});

	it('digestGraph gives each node the digest nodeDigest gives it, from the one serialization', () => {
		const g = nastyGraph();
		const { digest, nodeDigests } = digestGraph(g);
		expect(digest).toBe(referenceDigest(g));
		expect(nodeDigests.size).toBe(g.nodes.length);
		for (const n of g.nodes) expect(nodeDigests.get(n), n.uniqueId).toBe(nodeDigest(n));
		expect(new Set(nodeDigests.values()).size).toBe(g.nodes.length);
	});
});

describe.each(testBackends())('graph COPY on $name', (backend) => {
	let database: Database;
	const ws = 'copyws';
	beforeAll(async () => {
		database = await backend.open();
		await database.db.insert(workspace).values({ id: ws, name: 'Copy' });
	}, 120_000);
	afterAll(async () => {
		await database?.close();
	});

	async function version(path: string): Promise<GraphKey> {
		const hash = BigInt(Math.floor(Math.random() * 2 ** 52));
		await insertScriptVersion(database.db, { workspace: ws, hash, path, language: 'dbt', content: '', createdBy: 'alice' });
		return versionKey(ws, path, hash);
	}
	const store = (key: GraphKey, g: GraphContent) =>
		database.db.transaction(async (tx) => {
			await replaceGraph(database, tx, key, g, { digest: graphDigest(g), permissionedAs: 'u/alice' });
		});
	const stillUsable = async () => {
		const [r] = await database.rows<{ one: number }>(sql`select 1 as one`);
		expect(Number(r.one)).toBe(1);
	};

	it('dbt_node.digest is the node digest whether replaceGraph is handed them or computes them', async () => {
		// A workspace of its own: the next case counts its workspace's rows.
		const own = 'digestws';
		await database.db.insert(workspace).values({ id: own, name: 'Digests' });
		const versionIn = async (path: string) => {
			const hash = BigInt(Math.floor(Math.random() * 2 ** 52));
			await insertScriptVersion(database.db, { workspace: own, hash, path, language: 'dbt', content: '', createdBy: 'alice' });
			return versionKey(own, path, hash);
		};
		const g = nastyGraph();
		const handed = await versionIn('f/copy/digests-handed');
		const computed = await versionIn('f/copy/digests-computed');
		const { digest, nodeDigests } = digestGraph(g);
		await database.db.transaction((tx) => replaceGraph(database, tx, handed, g, { digest, permissionedAs: 'u/alice' }, { nodeDigests }));
		await database.db.transaction((tx) => replaceGraph(database, tx, computed, g, { digest, permissionedAs: 'u/alice' }));
		const expected = Object.fromEntries(g.nodes.map((n) => [n.uniqueId, nodeDigest(n)]));
		for (const key of [handed, computed]) {
			const rows = await database.rows<{ unique_id: string; digest: string }>(
				sql`select unique_id, digest from dbt_node where workspace = ${own} and script_path = ${key.scriptPath} and script_hash = ${key.scriptHash!.toString()}::bigint`
			);
			expect(Object.fromEntries(rows.map((r) => [r.unique_id, r.digest]))).toEqual(expected);
		}
	});

	it('stores nasty values exactly: tabs, newlines, backslashes, quotes, unicode, NULL vs empty', async () => {
		const g = nastyGraph();
		for (const key of [await version('f/copy/nasty'), { workspace: ws, scriptPath: 'f/copy/nasty', scriptHash: null, jobId: randomUUID() }]) {
			await store(key, g);
			const d = await dumpGraph(database.db, key);
			const { workspace: _w, scriptPath: _p, scriptHash: _h, jobId: _j, ...first } = d.nodes.find((n) => n.uniqueId === g.nodes[0].uniqueId)!;
			expect(first).toEqual(g.nodes[0]);
			expect(d.nodes.map(({ workspace: _w, scriptPath: _p, scriptHash: _h, jobId: _j, ...n }) => n)).toEqual(
				[...g.nodes].sort((a, b) => (a.uniqueId < b.uniqueId ? -1 : 1))
			);
			expect(d.edges).toEqual(
				g.edges.map((e) => ({ p: e.parent, c: e.child })).sort((x, y) => (x.p < y.p ? -1 : x.p > y.p ? 1 : x.c < y.c ? -1 : 1))
			);
			const byKey = (e: { pu: string; pc: string; cu: string; cc: string; k: string }) => [e.pu, e.pc, e.cu, e.cc, e.k].join('\u0000');
			expect(d.columnEdges.map((e) => ({ ...e })).sort((x, y) => (byKey(x) < byKey(y) ? -1 : 1))).toEqual(
				g.columnEdges!
					.map((e) => ({ pu: e.parentUniqueId, pc: e.parentColumn, cu: e.childUniqueId, cc: e.childColumn, k: e.lineageKind, comp: e.component }))
					.sort((x, y) => (byKey(x) < byKey(y) ? -1 : 1))
			);
			expect(d.marker?.digest).toBe(graphDigest(g));
		}
		// '' stays '' (the NULL lineage kind), NULL stays NULL (a missing description).
		const [kinds] = await database.rows<{ empty: number; nulls: number }>(
			sql`select count(*) filter (where lineage_kind = '')::int as empty, count(*) filter (where lineage_kind is null)::int as nulls
			      from dbt_column_edge e join dbt_graph_snapshot g on g.id = e.graph_id where g.workspace = ${ws}`
		);
		expect(kinds).toEqual({ empty: 2, nulls: 0 });
		const [desc] = await database.rows<{ empty: number; nulls: number }>(
			sql`select count(*) filter (where description = '')::int as empty, count(*) filter (where description is null)::int as nulls
			      from dbt_node where workspace = ${ws}`
		);
		expect(desc).toEqual({ empty: 2, nulls: 4 });
		const [j] = await database.rows<{ t: string; s: string }>(
			sql`select jsonb_typeof(test_args) as t, test_args->>'s' as s from dbt_node where workspace = ${ws} and test_args ? 's' limit 1`
		);
		expect(j).toEqual({ t: 'object', s: 'x\ty\n\\z"' });
	});

	it('a load failing mid-stream on the server (a duplicate column edge) leaves the previous graph exactly as it was', async () => {
		const key = await version('f/copy/atomic-mid');
		const before = nastyGraph();
		await store(key, before);
		const dump = await dumpGraph(database.db, key);
		// Enough rows for several 256 KB chunks, the duplicate first: the server fails while we still write.
		const many: ColumnEdgeRow[] = Array.from({ length: 40_000 }, (_, i) => ({
			parentUniqueId: 'model.p.x',
			parentColumn: `column_with_a_fairly_long_name_${String(i).padStart(6, '0')}`,
			childUniqueId: 'model.p.y',
			childColumn: 'c',
			lineageKind: 'copy',
			component: 0
		}));
		many.unshift({ ...many[0] });
		const bad: GraphContent = { nodes: [node('model.p.x'), node('model.p.y')], edges: [], columnEdges: many };
		await expect(store(key, bad)).rejects.toThrow(/duplicate key|unique/i);
		expect(await dumpGraph(database.db, key)).toEqual(dump);
		await stillUsable();
	});

	it('a load failing in its last rows (after the data ended) rejects with the server error and rolls back', async () => {
		const key = await version('f/copy/atomic-end');
		await store(key, nastyGraph());
		const dump = await dumpGraph(database.db, key);
		const bad = nastyGraph();
		bad.columnEdges!.push({ ...bad.columnEdges![0] }); // the duplicate is the very last row
		await expect(store(key, bad)).rejects.toThrow(/duplicate key|unique/i);
		expect(await dumpGraph(database.db, key)).toEqual(dump);
		await stillUsable();
	});

	it('copyRows surfaces a constraint checked at the end of the statement (foreign key) instead of hanging', async () => {
		const parent = `copy_fk_parent_${randomUUID().slice(0, 8)}`;
		const child = `copy_fk_child_${randomUUID().slice(0, 8)}`;
		await database.rows(sql.raw(`create table ${parent} (id int primary key)`));
		await database.rows(sql.raw(`create table ${child} (id int references ${parent} (id), note text)`));
		await database.rows(sql.raw(`insert into ${parent} values (1)`));
		const attempt = database.db.transaction(async (tx) => {
			await copyRows(database, tx, child, ['id', 'note'], ['1\tok\n', '999\tno parent\n']);
		});
		await expect(
			Promise.race([attempt, new Promise((_, reject) => setTimeout(() => reject(new Error('copyRows hung')), 15_000))])
		).rejects.toThrow(/foreign key/i);
		const [c] = await database.rows<{ n: number }>(sql.raw(`select count(*)::int as n from ${child}`));
		expect(c.n).toBe(0);
		// And a good load through the same path commits.
		await database.db.transaction(async (tx) => copyRows(database, tx, child, ['id', 'note'], ['1\ta\\tb\n', '1\t\\N\n']));
		const rows = await database.rows<{ note: string | null }>(sql.raw(`select note from ${child} order by note nulls last`));
		expect(rows.map((r) => r.note)).toEqual(['a\tb', null]);
		await database.rows(sql.raw(`drop table ${child}`));
		await database.rows(sql.raw(`drop table ${parent}`));
	});

	it('a load failing on our side mid-stream (the row source throws) rolls back and leaves the connection usable', async () => {
		const key = await version('f/copy/atomic-ours');
		await store(key, nastyGraph());
		const dump = await dumpGraph(database.db, key);
		await expect(
			database.db.transaction(async (tx) => {
				const [{ id }] = await database.rows<{ id: unknown }>(sql`select id from dbt_graph_snapshot where workspace = ${ws} and script_path = 'f/copy/atomic-ours'`, tx);
				await database.rows(sql`delete from dbt_column_edge where graph_id = ${Number(id)}`, tx);
				const big = Array.from({ length: 5_000 }, (_, i) => `${id}\t0\t${i + 1}\tcopy\t\\N\n`).join('');
				await copyRows(database, tx, 'dbt_column_edge', ['graph_id', 'parent_col', 'child_col', 'lineage_kind', 'component'], (function* () {
					yield big;
					yield big.replace(/\tcopy\t/g, '\tmod\t');
					throw new Error('the row source failed');
				})());
			})
		).rejects.toThrow('the row source failed');
		expect(await dumpGraph(database.db, key)).toEqual(dump);
		await stillUsable();
	});

	it('loads a graph larger than one chunk and one PGlite blob (9+ MB of COPY data), row for row', async () => {
		const key = await version('f/copy/big');
		const n = 28_000;
		const ids = ['model.p.big_parent_with_a_long_unique_id', 'model.p.big_child_with_a_long_unique_id'];
		const columnEdges: ColumnEdgeRow[] = Array.from({ length: n }, (_, i) => ({
			parentUniqueId: ids[0],
			parentColumn: `parent_column_${String(i).padStart(6, '0')}_${'p'.repeat(130)}\t${i % 7 === 0 ? '\\' : ''}`,
			childUniqueId: ids[1],
			childColumn: `child_column_${String(i).padStart(6, '0')}_${'c'.repeat(130)}`,
			lineageKind: i % 5 === 0 ? '' : i % 2 ? 'copy' : 'scan',
			component: i % 2 ? i % 97 : null
		}));
		const g: GraphContent = { nodes: ids.map((id) => node(id)), edges: [{ parent: ids[0], child: ids[1] }], columnEdges };
		await store(key, g);
		expect(await graphCounts(database.db, key)).toEqual({ nodes: 2, edges: 1, columnEdges: n });
		const d = await dumpGraph(database.db, key);
		expect(d.columnEdges.map((e) => [e.pc, e.cc, e.k, e.comp])).toEqual(columnEdges.map((e) => [e.parentColumn, e.childColumn, e.lineageKind, e.component]));
		// Replacing it with a small graph removes every row of the big one.
		await store(key, nastyGraph());
		expect((await graphCounts(database.db, key)).columnEdges).toBe(nastyGraph().columnEdges!.length);
	}, 180_000);
});
