// What a big manifest's parse costs the request thread: the generated 3000-model manifest parsed
// inline (parseManifest on this thread) and on a worker thread (ingest/manifest-thread.ts),
// interleaved in one run. While each parse runs, a 5 ms timer on this thread records the longest
// gap between its ticks: the time any other request would have waited. Not part of `npm run
// bench`'s gate: run it on its own.
//
//   npx tsx bench/manifest-thread.ts [--runs 5]
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseManifest } from '../src/lib/server/ingest/manifest';
import { parseManifestBytes } from '../src/lib/server/ingest/manifest-thread';
import { benchProject } from './projects';
import { environment, fmtMs, stat } from './lib';

const runsArg = process.argv.indexOf('--runs');
const runs = runsArg >= 0 ? Number(process.argv[runsArg + 1]) : 5;
const opts = { fileName: 'manifest.json', warehouse: 'main', defaultDatabase: null, selection: {} };

/** Runs `work` with a 5 ms ticker beside it: its wall time, and the longest stall of this thread. */
async function measured(work: () => Promise<unknown>): Promise<{ wallMs: number; stallMs: number }> {
	let last = performance.now();
	let stallMs = 0;
	const ticker = setInterval(() => {
		const now = performance.now();
		stallMs = Math.max(stallMs, now - last);
		last = now;
	}, 5);
	const t0 = performance.now();
	await work();
	const wallMs = performance.now() - t0;
	// One more tick, so a stall that lasted to the end of the work is counted.
	await new Promise((resolve) => setTimeout(resolve, 10));
	clearInterval(ticker);
	return { wallMs, stallMs };
}

const project = await benchProject(3000, 200_000);
const bytes = new Uint8Array(readFileSync(path.join(project.target, 'manifest.json')));
const results = { inline: { wall: [] as number[], stall: [] as number[] }, thread: { wall: [] as number[], stall: [] as number[] } };
for (let i = 0; i < runs; i++) {
	const inline = await measured(async () => parseManifest(new TextDecoder().decode(bytes), opts));
	const thread = await measured(() => parseManifestBytes(bytes, opts, 0));
	results.inline.wall.push(inline.wallMs);
	results.inline.stall.push(inline.stallMs);
	results.thread.wall.push(thread.wallMs);
	results.thread.stall.push(thread.stallMs);
}
const inlineStall = stat(results.inline.stall);
const threadStall = stat(results.thread.stall);
process.stdout.write(`manifest ${(bytes.length / 1e6).toFixed(1)} MB, ${runs} interleaved runs, ${JSON.stringify(environment())}\n`);
process.stdout.write(`| parse | wall time | longest stall of the request thread |\n|---|---|---|\n`);
process.stdout.write(`| inline | ${fmtMs(stat(results.inline.wall))} | ${fmtMs(inlineStall)} |\n`);
process.stdout.write(`| worker thread | ${fmtMs(stat(results.thread.wall))} | ${fmtMs(threadStall)} |\n`);
process.stdout.write(`stall ratio inline / thread: ${(inlineStall.median / threadStall.median).toFixed(1)}×\n`);
