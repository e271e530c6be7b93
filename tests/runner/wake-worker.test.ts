// A deploy or a run queued in this process wakes this process's worker (wakeWorker), without the
// ingest importing the runner: the worker registers itself when it starts and unregisters when
// it stops, so a wake with no worker is a no-op.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../src/lib/server/db';
import { runnerConfigFromEnv } from '../../src/lib/server/runner/config';
import { startProcessWorker, stopProcessWorker } from '../../src/lib/server/runner/worker';
import { runnerIngest } from '../../src/lib/server/runner-ingest';
import { wakeWorker } from '../../src/lib/server/wake-worker';
import { testBackends } from '../support/db';

describe('waking the process worker', () => {
	let database: Database;
	beforeAll(async () => {
		database = await testBackends()[0].open();
	});
	afterAll(async () => {
		await stopProcessWorker();
		await database?.close();
	});

	it('reaches the worker while it runs, and nothing once it stopped', async () => {
		expect(() => wakeWorker()).not.toThrow();
		// A poll of a minute: only a wake makes it look now.
		const worker = startProcessWorker({ database, ingest: runnerIngest, pollMs: 60_000, heartbeatMs: 60_000, config: runnerConfigFromEnv({ DBT_BIN: '/bin/false' }) });
		const kick = vi.spyOn(worker, 'kick');
		wakeWorker();
		expect(kick).toHaveBeenCalledTimes(1);
		await stopProcessWorker();
		wakeWorker();
		expect(kick).toHaveBeenCalledTimes(1);
	});
});
