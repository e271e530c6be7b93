// Where the build put a thread's own entry (build/manifest-thread.js, build/producer-thread.js,
// vite.worker.config.ts): searched upward from the module that starts the thread, since
// build/worker.js sits beside the entries and the app's chunks are a few folders below them. A
// thread that loads its own small entry starts without loading the app's server code.
import { existsSync } from 'node:fs';

/** The build's `file`, searched upward from the folder of `moduleUrl`; null when there is none. */
export function findBuildEntry(moduleUrl: URL, file: string): URL | null {
	let dir = new URL('.', moduleUrl);
	for (let depth = 0; depth < 5; depth++) {
		const candidate = new URL(file, dir);
		if (existsSync(candidate)) return candidate;
		const parent = new URL('..', dir);
		if (parent.href === dir.href) break;
		dir = parent;
	}
	return null;
}
