// Wakes this process's job worker when a job was queued here, so it claims the job now rather
// than at its next poll. The worker registers itself when it starts; the ingest calls this
// without importing the runner, which imports the ingest.
let wake: (() => void) | null = null;

export function setWorkerWake(fn: (() => void) | null): void {
	wake = fn;
}

export function wakeWorker(): void {
	wake?.();
}
