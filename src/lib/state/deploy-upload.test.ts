import { describe, expect, it } from 'vitest';
import { DeployUpload, sortDrop, uploadForm, type DroppedFile, type UploadTransport } from './deploy-upload.svelte';

const file = (relativePath: string, text = '{}'): DroppedFile => ({ file: new Blob([text]), name: relativePath.split('/').at(-1)!, relativePath });

describe('sortDrop: a dropped target/ folder sorted as the CLI finds its files', () => {
	it('takes the manifest, catalog, run results, the index (index/ before info_schema/v1/) and a project archive; ignores the rest', () => {
		const s = sortDrop([
			file('target/manifest.json'),
			file('target/catalog.json'),
			file('target/run_results.json'),
			file('target/info_schema/v1/dbt.column_lineage.parquet'),
			file('target/index/dbt.column_lineage.parquet'),
			file('target/index/dbt.node_columns.parquet'),
			file('target/graph.gpickle'),
			file('project.tar.gz')
		]);
		expect(Object.fromEntries(Object.entries(s.files).map(([k, v]) => [k, v!.relativePath]))).toEqual({
			manifest: 'target/manifest.json',
			catalog: 'target/catalog.json',
			run_results: 'target/run_results.json',
			column_lineage: 'target/index/dbt.column_lineage.parquet',
			node_columns: 'target/index/dbt.node_columns.parquet',
			project: 'project.tar.gz'
		});
		expect(s.ignored.sort()).toEqual(['target/graph.gpickle', 'target/info_schema/v1/dbt.column_lineage.parquet']);
		expect(s.errors).toEqual([]);
		expect(s.notes).toEqual([]);
	});

	it('refuses a drop without manifest.json, naming what it expects', () => {
		const s = sortDrop([file('target/catalog.json')]);
		expect(s.errors).toHaveLength(1);
		expect(s.errors[0]).toMatch(/^no manifest\.json among the dropped files/);
		expect(sortDrop([]).errors).toEqual(['nothing was dropped']);
	});

	it("says what a missing index, catalog or archive costs, in the CLI's words", () => {
		const s = sortDrop([file('manifest.json')]);
		expect(s.notes).toEqual([
			'no column-lineage index in this target: column lineage is inferred from the compiled SQL',
			'no catalog.json (`dbt docs generate` writes it): no typed columns, and `select *` over a seed, source or snapshot cannot be expanded',
			'no project archive (project.tar.gz): the version can be browsed but not run here'
		]);
		expect(sortDrop([file('manifest.json'), file('index/dbt.column_lineage.parquet'), file('p.tgz')]).notes).toEqual([
			'only dbt.column_lineage.parquet of the index was dropped: the index needs both files'
		]);
	});

	it('builds the form with the path first, then the descriptor and the files', () => {
		const s = sortDrop([file('target/catalog.json'), file('target/manifest.json'), file('tributary.yml', 'profile: {}')]);
		const f = uploadForm('f/a/b', s, 'profile: {}');
		expect([...f.keys()]).toEqual(['path', 'descriptor', 'manifest', 'catalog']);
		expect((f.get('manifest') as File).name).toBe('manifest.json');
	});
});

function fakeTransport(answers: { post: { status: number; body: unknown }; jobs?: Record<string, { status: number; body: unknown }[]>; diff?: { status: number; body: unknown } }) {
	const asked: string[] = [];
	const progress: [number, number][] = [];
	const t: UploadTransport = {
		send: async (url, _form, onProgress) => {
			asked.push(`POST ${url}`);
			for (const sent of [10, 60, 100]) {
				onProgress(sent, 100);
				progress.push([sent, 100]);
			}
			return answers.post;
		},
		getJson: async (url) => {
			asked.push(`GET ${url}`);
			if (url.includes('/dbt/diff')) return answers.diff ?? { status: 404, body: { error: 'none' } };
			const id = /jobs\/get\/([^?]+)/.exec(url)![1];
			const queue = answers.jobs![id];
			return queue.length > 1 ? queue.shift()! : queue[0];
		},
		sleep: async () => {}
	};
	return { t, asked, progress };
}

describe('DeployUpload', () => {
	const dropped = [file('target/manifest.json'), file('target/catalog.json', 'not json')];

	it('uploads, follows the lineage job to its end, and keeps the warnings', async () => {
		const { t, asked } = fakeTransport({
			post: { status: 201, body: { hash: 'ab', job_id: 'd1', nodes: 5, edges: 4, column_edges: null, typed_nodes: 0, warnings: ['catalog.json is not valid JSON'], url: '/w/ws/run/d1', lineage_job_id: 'l1', pin: null } },
			jobs: { l1: [{ status: 200, body: { status: 'running', result: { progress: { done: 1, total: 3 } } } }, { status: 200, body: { status: 'success', result: { models: { analyzed: 3, partial: 0, failed: 0, skipped: 0 }, column_edges: 9 } } }] }
		});
		const u = new DeployUpload({ workspace: 'ws', transport: t });
		u.take(dropped);
		await u.start('f/a/b');
		expect(u.phase).toBe('done');
		expect(u.sent).toBe(100);
		expect(u.result?.warnings).toEqual(['catalog.json is not valid JSON']);
		expect(u.jobs).toEqual([{ id: 'l1', label: 'inferring column lineage', status: 'success', done: null, total: null, outcome: '3 analyzed, 0 partial, 0 failed, 0 skipped; 9 column edges' }]);
		expect(asked[0]).toBe('POST /api/w/ws/scripts/dbt/deploy?path=f%2Fa%2Fb');
		expect(asked.filter((a) => a.includes('jobs/get/l1'))).toHaveLength(2);
		expect(asked.some((a) => a.includes('dbt/diff'))).toBe(false);
	});

	it("says the server's refusal as the CLI does", async () => {
		const { t } = fakeTransport({ post: { status: 403, body: { error: 'you may not write f/a/b' } } });
		const u = new DeployUpload({ workspace: 'ws', transport: t });
		u.take(dropped);
		await u.start('f/a/b');
		expect(u.phase).toBe('failed');
		expect(u.error).toBe('deploy failed (403): you may not write f/a/b');
		expect(u.result).toBeNull();
	});

	it("a preview reads its diff against the newest version; without one it says so", async () => {
		const body = { hash: null, job_id: 'p1', warnings: [], url: '/w/ws/run/p1', lineage_job_id: null, pin: null };
		const diff = { classification: 'non_breaking', models: { added: ['m.x'], removed: [], modified: [] } };
		const a = fakeTransport({ post: { status: 201, body }, diff: { status: 200, body: diff } });
		const u = new DeployUpload({ workspace: 'ws', transport: a.t });
		u.kind = 'preview';
		u.take(dropped);
		await u.start('f/a/b');
		expect(a.asked.at(-1)).toBe('GET /api/w/ws/dbt/diff?path=f%2Fa%2Fb&from=latest&to=p1');
		expect(u.diff).toEqual(diff);
		const b = fakeTransport({ post: { status: 201, body } });
		const v = new DeployUpload({ workspace: 'ws', transport: b.t });
		v.kind = 'preview';
		v.take(dropped);
		await v.start('f/a/b');
		expect(v.diff).toBeNull();
		expect(v.diffNote).toBe('no deployed version of this path to compare with yet');
	});

	it('sends nothing for a drop it refused', async () => {
		const { t, asked } = fakeTransport({ post: { status: 201, body: {} } });
		const u = new DeployUpload({ workspace: 'ws', transport: t });
		u.take([file('target/catalog.json')]);
		await u.start('f/a/b');
		expect(asked).toEqual([]);
		expect(u.phase).toBe('idle');
	});
});
