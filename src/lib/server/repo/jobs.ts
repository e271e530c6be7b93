// Job rows. The runner (its own room) will add claiming; deploys and previews create finished
// jobs here so every upload has a page and a log.
import { randomUUID } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import type { Tx } from '../db';
import { job } from '../schema';

export type JobKind = 'run' | 'deploy' | 'preview' | 'recorded';
export type JobStatus = 'queued' | 'running' | 'success' | 'failure' | 'canceled';

export interface NewJob {
	workspace: string;
	kind: JobKind;
	scriptPath: string | null;
	scriptHash: bigint | null;
	createdBy: string;
	permissionedAs: string;
	status: JobStatus;
	args?: Record<string, unknown>;
	result?: unknown;
	logs?: string;
	parentJob?: string | null;
	timeoutS?: number | null;
}

export async function insertJob(tx: Tx, j: NewJob, id: string = randomUUID()): Promise<string> {
	const now = new Date();
	const finished = j.status === 'success' || j.status === 'failure' || j.status === 'canceled';
	await tx.insert(job).values({
		id,
		...j,
		args: j.args ?? {},
		result: j.result ?? null,
		logs: j.logs ?? '',
		startedAt: j.status === 'queued' ? null : now,
		completedAt: finished ? now : null
	});
	return id;
}

export async function getJob(tx: Tx, workspace: string, id: string) {
	const r = await tx
		.select()
		.from(job)
		.where(and(eq(job.workspace, workspace), eq(job.id, id)))
		.limit(1);
	return r[0] ?? null;
}

export async function appendJobLog(tx: Tx, id: string, text: string): Promise<void> {
	await tx
		.update(job)
		.set({ logs: sql`${job.logs} || ${text}` })
		.where(eq(job.id, id));
}
