// Deploy, preview and record gate on the path before they read the files (issue 14, finding 6):
// a caller who may not write it is refused with 403 while the body's files are still unread.
// The body is a stream that counts what the server pulled from it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../support/api';
import { testBackends } from '../support/db';
import { needFixtures } from '../support/fixtures';
import { buildLineageWorld, WS, type LineageWorld } from '../support/lineage-world';

const BOUNDARY = 'tributary-test-boundary';
const CHUNK = 256 * 1024;
const CHUNKS = 32;

/** A multipart body: text fields, then one file part of CHUNKS × CHUNK bytes, pulled lazily. */
function countedBody(fields: [string, string][], file: string) {
	const enc = new TextEncoder();
	const head =
		fields.map(([k, v]) => `--${BOUNDARY}\r\ncontent-disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`).join('') +
		`--${BOUNDARY}\r\ncontent-disposition: form-data; name="${file}"; filename="${file}.json"\r\ncontent-type: application/json\r\n\r\n`;
	const tail = enc.encode(`\r\n--${BOUNDARY}--\r\n`);
	const counter = { fileChunksPulled: 0 };
	let step = 0;
	const body = new ReadableStream<Uint8Array>(
		{
			pull(controller) {
				if (step === 0) controller.enqueue(enc.encode(head));
				else if (step <= CHUNKS) {
					counter.fileChunksPulled++;
					controller.enqueue(new Uint8Array(CHUNK).fill(0x78));
				} else if (step === CHUNKS + 1) controller.enqueue(tail);
				else controller.close();
				step++;
			}
		},
		{ highWaterMark: 0 }
	);
	return { body, counter };
}

const post = (client: ApiClient, url: string, fields: [string, string][], file: string) => {
	const { body, counter } = countedBody(fields, file);
	return client.call('POST', url, { raw: { body, contentType: `multipart/form-data; boundary=${BOUNDARY}` } }).then((r) => ({ ...r, ...counter }));
};

// The lineage world deploys the real jaffle-shop manifest.
describe.skipIf(!needFixtures('uploads gated before their files are read')).each(testBackends())('uploads are gated before their files are read ($name)', (backend) => {
	let w: LineageWorld;

	beforeAll(async () => {
		w = await buildLineageWorld(await backend.open());
	}, 120_000);

	afterAll(async () => {
		w?.restoreEnv();
		await w?.database.close();
	});

	// bob reads f/analytic but writes nothing; alice writes f/analytics.
	const uploads = [
		{ url: `/api/w/${WS}/scripts/dbt/deploy`, file: 'manifest' },
		{ url: `/api/w/${WS}/scripts/dbt/preview`, file: 'manifest' },
		{ url: `/api/w/${WS}/jobs/record`, file: 'run_results' }
	];

	describe.each(uploads)('$url', ({ url, file }) => {
		it('a member without write access: 403, the file unread', async () => {
			const r = await post(w.c.bob, url, [['path', 'f/analytic/x']], file);
			expect(r.status, JSON.stringify(r.body)).toBe(403);
			expect(r.fileChunksPulled).toBeLessThanOrEqual(1);
		});

		it('an assets:read token of a writer: 403 naming the scope, the file unread', async () => {
			const token = await w.token('alice', ['assets:read']);
			const r = await post(token, url, [['path', 'f/analytics/x']], file);
			expect(r.status, JSON.stringify(r.body)).toBe(403);
			expect(r.body.error).toMatch(/lacks the scope/);
			expect(r.fileChunksPulled).toBeLessThanOrEqual(1);
		});

		it('the path from the query gates the same way', async () => {
			const r = await post(w.c.bob, `${url}?path=f/analytic/x`, [], file);
			expect(r.status, JSON.stringify(r.body)).toBe(403);
			expect(r.fileChunksPulled).toBeLessThanOrEqual(1);
		});

		it('a writer passes the gate and the whole body is read (the garbage file is then refused, naming it)', async () => {
			const r = await post(w.c.alice, url, [['path', 'f/analytics/x']], file);
			expect(r.status, JSON.stringify(r.body)).toBe(400);
			expect(r.body.error).toMatch(new RegExp(`^${file}`));
			expect(r.fileChunksPulled).toBe(CHUNKS);
		});

		it('a path after the first file is refused with 400 before the file is read', async () => {
			const r = await post(w.c.alice, url, [['descriptor', 'x: 1']], file);
			expect(r.status, JSON.stringify(r.body)).toBe(400);
			expect(r.body.error).toMatch(/^path: send it in the query/);
			expect(r.fileChunksPulled).toBeLessThanOrEqual(1);
		});

		it('a query path and a form path that disagree are refused', async () => {
			const r = await post(w.c.alice, `${url}?path=f/analytics/x`, [['path', 'f/analytics/y']], file);
			expect(r.status, JSON.stringify(r.body)).toBe(400);
			expect(r.body.error).toMatch(/^path: the query names f\/analytics\/x but the form names f\/analytics\/y/);
		});
	});
});
