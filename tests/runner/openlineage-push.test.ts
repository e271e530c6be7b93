// TRIBUTARY_OPENLINEAGE_URL: a settled run's events are posted by the real worker to an
// OpenLineage HTTP endpoint — here a small receiver on 127.0.0.1 started by the test — and a
// refusing or silent endpoint is a line in the run's log, never a change in how the run ends.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/lib/server/db';
import { openLineagePushFromEnv } from '../../src/lib/server/openlineage-push';
import { testBackends } from '../support/db';
import { describeFixtures } from '../support/fixtures';
import { openLineageValidator } from '../support/openlineage-schemas';
import { buildRunnerWorld, PG_LOGS, replay, type RunnerWorld } from '../support/runner-world';

const OK_RUN = path.join(PG_LOGS, 'run', 'successful_run.log.jsonl');
const FAILED_RUN = path.join(PG_LOGS, 'run', 'failed_run.log.jsonl');
const RUN_MANIFEST = path.join(PG_LOGS, 'run', 'manifest.json');

describe('TRIBUTARY_OPENLINEAGE_URL', () => {
	it.each([
		['http://marquez:5000', 'http://marquez:5000/api/v1/lineage'],
		['http://marquez:5000/', 'http://marquez:5000/api/v1/lineage'],
		['https://ol.example/v2/ingest', 'https://ol.example/v2/ingest']
	])('%s posts to %s', (raw, url) => {
		expect(openLineagePushFromEnv({ TRIBUTARY_OPENLINEAGE_URL: raw })).toEqual({ url, timeoutMs: 10_000, apiKey: null });
	});
	it('unset is no push; a timeout and a key are read; a bad URL is refused naming the variable', () => {
		expect(openLineagePushFromEnv({})).toBeNull();
		expect(openLineagePushFromEnv({ TRIBUTARY_OPENLINEAGE_URL: 'http://x', TRIBUTARY_OPENLINEAGE_TIMEOUT_MS: '2500', TRIBUTARY_OPENLINEAGE_API_KEY: 'k' })).toEqual({
			url: 'http://x/api/v1/lineage',
			timeoutMs: 2500,
			apiKey: 'k'
		});
		expect(() => openLineagePushFromEnv({ TRIBUTARY_OPENLINEAGE_URL: 'ftp://x' })).toThrow(/TRIBUTARY_OPENLINEAGE_URL/);
		expect(() => openLineagePushFromEnv({ TRIBUTARY_OPENLINEAGE_URL: 'not a url' })).toThrow(/TRIBUTARY_OPENLINEAGE_URL/);
	});
});

type Mode = 'accept' | 'refuse' | 'silent' | 'redirect';

/** An OpenLineage endpoint on 127.0.0.1: keeps what it is sent, answers as `mode` says. */
class Receiver {
	received: { path: string; auth: string | undefined; body: any }[] = [];
	mode: Mode = 'accept';
	/** Where `redirect` mode sends the client, and with which status. */
	redirect = { status: 302, location: '' };
	private server: Server;
	private hanging: ServerResponse[] = [];
	url = '';
	constructor() {
		this.server = createServer((req: IncomingMessage, res: ServerResponse) => {
			let text = '';
			req.on('data', (c) => (text += c));
			req.on('end', () => {
				this.received.push({ path: req.url ?? '', auth: req.headers.authorization, body: JSON.parse(text) });
				if (this.mode === 'silent') this.hanging.push(res);
				else if (this.mode === 'refuse') res.writeHead(503).end('busy');
				else if (this.mode === 'redirect') res.writeHead(this.redirect.status, { location: this.redirect.location }).end();
				else res.writeHead(201).end();
			});
		});
	}
	async start(): Promise<void> {
		await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
		this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
	}
	async stop(): Promise<void> {
		for (const r of this.hanging) r.destroy();
		this.server.closeAllConnections();
		await new Promise((r) => this.server.close(r));
	}
}

describeFixtures('a settled run is pushed to an OpenLineage endpoint', () => {
	describe.each(testBackends())('on $name', (backend) => {
		let database: Database;
		let w: RunnerWorld;
		const receiver = new Receiver();
		const validator = openLineageValidator();

		beforeAll(async () => {
			await receiver.start();
			database = await backend.open();
			w = await buildRunnerWorld(database, { config: { openLineage: { url: `${receiver.url}/api/v1/lineage`, timeoutMs: 5000, apiKey: 'ol-key' } } });
			await w.deploy('ok', replay(OK_RUN, {}, RUN_MANIFEST), { manifest: RUN_MANIFEST });
			await w.deploy('bad', replay(FAILED_RUN, {}, RUN_MANIFEST), { manifest: RUN_MANIFEST });
		}, 120_000);
		afterAll(async () => {
			await w?.close();
			await receiver.stop();
		});

		it("a successful run: its events, each valid, the same as jobs/openlineage answers, and a line in its log", async () => {
			receiver.received = [];
			const job = await w.waitJob(await w.run('ok', { command: 'run' }));
			expect(job.status).toBe('success');
			const sent = receiver.received;
			expect(sent.length).toBeGreaterThan(2);
			for (const r of sent) {
				expect(r.path).toBe('/api/v1/lineage');
				expect(r.auth).toBe('Bearer ol-key');
				expect(validator.errors(r.body)).toEqual([]);
			}
			expect(sent[0].body).toMatchObject({ eventType: 'START', run: { runId: job.id } });
			expect(sent.at(-1)!.body).toMatchObject({ eventType: 'COMPLETE', run: { runId: job.id } });
			const models = job.result.nodes.filter((n: any) => n.unique_id.startsWith('model.'));
			expect(sent.filter((r) => r.body.eventType === 'COMPLETE' && r.body.run.runId !== job.id)).toHaveLength(models.length);
			expect(job.logs).toContain(`OpenLineage: sent ${sent.length} events to ${receiver.url}/api/v1/lineage`);
			// What was pushed is what the read endpoint answers for the settled run (times aside).
			const read = await w.wendy.get(`/api/w/runs/jobs/openlineage/${job.id}`);
			const lines = String(read.body).split('\n').filter(Boolean).map((l) => JSON.parse(l));
			const shape = (e: any) => [e.eventType, e.job.name, e.run.runId, e.outputs.map((o: any) => o.name)];
			expect(sent.map((r) => shape(r.body))).toEqual(lines.map(shape));
		});

		it('a failed run: FAIL events with the message; the run still fails for its own reason only', async () => {
			receiver.received = [];
			const job = await w.waitJob(await w.run('bad', { command: 'run' }));
			expect(job.status).toBe('failure');
			const fails = receiver.received.filter((r) => r.body.eventType === 'FAIL');
			expect(fails.length).toBeGreaterThan(1);
			expect(fails.some((r) => typeof r.body.run.facets?.errorMessage?.message === 'string')).toBe(true);
			expect(job.logs).toMatch(/OpenLineage: sent \d+ events/);
		});

		it('an endpoint that refuses, or does not answer in time, is a log line; the run succeeds', async () => {
			receiver.mode = 'refuse';
			const refused = await w.waitJob(await w.run('ok', { command: 'run' }));
			expect(refused.status).toBe('success');
			expect(refused.logs).toMatch(/OpenLineage: .*\/api\/v1\/lineage refused event 1 of \d+ \(HTTP 503\); the rest were not sent/);

			receiver.mode = 'silent';
			const saved = w.config.openLineage!;
			w.config.openLineage = { ...saved, timeoutMs: 300 };
			try {
				const silent = await w.waitJob(await w.run('ok', { command: 'run' }));
				expect(silent.status).toBe('success');
				expect(silent.logs).toContain(`OpenLineage: could not send events to ${receiver.url}/api/v1/lineage: no answer within 300 ms`);
			} finally {
				w.config.openLineage = saved;
				receiver.mode = 'accept';
			}
		});

		it('an endpoint that redirects is not followed: the target gets nothing and the log names the Location', async () => {
			const elsewhere = new Receiver();
			await elsewhere.start();
			receiver.mode = 'redirect';
			try {
				// 302 (a client may turn it into a GET) and 307 (the POST, its body and key resent as they are).
				for (const status of [302, 307]) {
					receiver.received = [];
					receiver.redirect = { status, location: `${elsewhere.url}/steal?k=1` };
					const job = await w.waitJob(await w.run('ok', { command: 'run' }));
					expect(job.status).toBe('success');
					expect(receiver.received).toHaveLength(1);
					expect(job.logs).toMatch(
						new RegExp(`OpenLineage: ${receiver.url}/api/v1/lineage redirected event 1 of \\d+ to ${elsewhere.url}/steal \\(HTTP ${status}\\); redirects are not followed, the rest were not sent`)
					);
					expect(job.logs).not.toContain('k=1');
				}
				expect(elsewhere.received).toEqual([]);
			} finally {
				receiver.mode = 'accept';
				await elsewhere.stop();
			}
		});

		it('an endpoint that is not there is a log line too', async () => {
			// A port that was just free: nothing listens there.
			const gone = createServer();
			await new Promise<void>((r) => gone.listen(0, '127.0.0.1', r));
			const port = (gone.address() as AddressInfo).port;
			await new Promise((r) => gone.close(r));
			const saved = w.config.openLineage!;
			w.config.openLineage = { ...saved, url: `http://127.0.0.1:${port}/api/v1/lineage` };
			try {
				const job = await w.waitJob(await w.run('ok', { command: 'run' }));
				expect(job.status).toBe('success');
				expect(job.logs).toContain(`OpenLineage: could not send events to http://127.0.0.1:${port}/api/v1/lineage: connect ECONNREFUSED`);
			} finally {
				w.config.openLineage = saved;
			}
		});
	});
});
