// `npm run worker`: a job worker process of its own (built to build/worker.js). Scaling out is
// starting more of these against one Postgres. SIGTERM/SIGINT stop it as shutdown.ts says: no new
// claims, the jobs in flight handed back (their dbt process groups stopped; re-queued or failed
// as hand-back.ts decides), the database closed, exit 0.
import { isMainThread } from 'node:worker_threads';
import { openDatabase } from './db';
import { runnerIngest } from './runner-ingest';
import { exitOnStopSignals, shutdownGraceMs } from './shutdown';
import { Worker } from './runner/worker';

const say = (line: string) => process.stdout.write(`${line}\n`);

async function main(): Promise<void> {
	const url = process.env.DATABASE_URL;
	if (!url) {
		process.stderr.write(
			'npm run worker needs DATABASE_URL (a Postgres shared with the web app). On the embedded database the worker runs inside `npm start` instead.\n'
		);
		process.exit(2);
	}
	// A worker needs the database and the encryption key; the share-link secret and the admin
	// password are the web app's, and a worker holding them only widens what a leak would give.
	const needless = ['TRIBUTARY_SECRET', 'TRIBUTARY_ADMIN_PASSWORD'].filter((k) => process.env[k]);
	if (needless.length) say(`note: ${needless.join(' and ')} ${needless.length === 1 ? 'is' : 'are'} set, but a worker does not need ${needless.length === 1 ? 'it' : 'them'}: start workers with DATABASE_URL and TRIBUTARY_ENCRYPTION_KEY only`);
	if (!process.env.TRIBUTARY_ENCRYPTION_KEY) say('note: TRIBUTARY_ENCRYPTION_KEY is not set: warehouse secrets are opened with the key derived from the share-link secret stored in the database');
	const graceMs = shutdownGraceMs();
	const database = await openDatabase({ url });
	const worker = new Worker({ database, ingest: runnerIngest, log: say }).start();
	say(`worker ${worker.id} polling for dbt jobs (DBT_BIN=${process.env.DBT_BIN || 'dbt'})`);
	exitOnStopSignals({
		graceMs,
		log: (line) => say(`worker ${worker.id}: ${line}`),
		stop: async (signal) => {
			await worker.stop({ handBack: true, withinMs: graceMs, why: signal });
			await database.close();
		}
	});
}

// This bundle is also what a manifest-parse thread loads (ingest/manifest-thread.ts runs its own
// module, bundled here): a thread must not start a second worker.
if (isMainThread) main().catch((e) => {
	process.stderr.write(`worker: ${(e as Error).stack ?? e}\n`);
	process.exit(1);
});
