// The sandbox's start-up overhead: the stand-in dbt (tests/support/fake-dbt/dbt.mjs, a node
// script) started the way the runner starts dbt, bare (TRIBUTARY_SANDBOX=off) and inside
// bubblewrap (the default), interleaved in one run so both see the same machine load. Each start
// is timed from spawn to exit of `dbt --version`, and of a `parse` (which writes its manifest
// into the job directory). Not part of `npm run bench`'s gate: run it on its own.
//
//   npx tsx bench/sandbox.ts [--runs 40]
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runProcess } from '../src/lib/server/runner/child-process';
import { sandboxed, withLimits } from '../src/lib/server/runner/dbt-process';
import { childEnv } from '../src/lib/server/runner/profiles';
import { fmtMs, stat, environment } from './lib';

const runsArg = process.argv.indexOf('--runs');
const runs = runsArg >= 0 ? Number(process.argv[runsArg + 1]) : Number(process.env.BENCH_RUNS ?? 40);
const FAKE_DBT = path.resolve('tests/support/fake-dbt/dbt.mjs');
const FIXTURES = path.resolve(process.env.TRIBUTARY_FIXTURES ?? path.join('..', 'shared', 'fixtures'));
const manifest = path.join(FIXTURES, 'openlineage-json-logs-postgres-1.8.2', 'run', 'manifest.json');

const root = mkdtempSync(path.join(tmpdir(), 'tributary-bench-sandbox-'));
const project = path.join(root, 'project');
mkdirSync(project);
writeFileSync(path.join(project, 'dbt_project.yml'), 'name: bench\nprofile: bench\n');
writeFileSync(path.join(project, 'fake-dbt.json'), JSON.stringify({ commands: { parse: { manifest } } }));
const env = childEnv({ home: root, warehouseEnv: {} });
const limits = { deadline: Date.now() + 3_600_000, signal: new AbortController().signal, killGraceMs: 0 };

async function timed(argv: string[], sandbox: boolean): Promise<number> {
	let cmd: { bin: string; argv: string[]; extraFds?: Uint8Array[] } = withLimits(FAKE_DBT, argv, { memoryMb: null });
	if (sandbox) {
		cmd = await sandboxed(cmd, { bwrapPath: null, dbtBin: FAKE_DBT, pathVar: env.PATH, jobRoot: root, cwd: project, network: false, readOnly: [FIXTURES] });
	}
	const t0 = performance.now();
	const out = await runProcess({ bin: cmd.bin, argv: cmd.argv, cwd: project, env, supervised: sandbox, extraFds: cmd.extraFds }, limits, { captureStdout: 1 << 20 });
	const ms = performance.now() - t0;
	if (out.exitCode !== 0) throw new Error(`${sandbox ? 'sandboxed' : 'bare'} ${argv[0]} failed (${out.exitCode ?? out.signal}): ${out.stderrTail.join('\n')}`);
	return ms;
}

const cases: [string, string[]][] = [
	['dbt --version', ['--version']],
	['dbt parse', ['parse', '--project-dir', project, '--target-path', path.join(root, 'target')]]
];
try {
	process.stdout.write(`sandbox start-up: ${runs} runs of each, bare and sandboxed interleaved\n${JSON.stringify(environment())}\n`);
	for (const [label, argv] of cases) {
		await timed(argv, false);
		await timed(argv, true);
		const bare: number[] = [];
		const boxed: number[] = [];
		for (let i = 0; i < runs; i++) {
			bare.push(await timed(argv, false));
			boxed.push(await timed(argv, true));
		}
		const b = stat(bare);
		const s = stat(boxed);
		process.stdout.write(`${label.padEnd(14)} bare ${fmtMs(b)}   sandboxed ${fmtMs(s)}   overhead ${(s.median - b.median).toFixed(1)} ms (×${(s.median / b.median).toFixed(2)})\n`);
	}
} finally {
	rmSync(root, { recursive: true, force: true });
}
