// The pipeline canvas at 3000 models, in Debian's Chromium against the built app: time to the
// first card and to the first frame a real drag moves (interactive), on a cold server (first
// open after a deploy: layout cache empty) and warm (every later open), each in a fresh
// browser context; then click → repaint for a card selection (canvas highlight), a group
// opening (a layout round trip), and a column trace. Measured as CANVAS.md measured (see
// tests/e2e/canvas-measure.ts). Needs `npx vite build` first.
//
// Both layout directions are measured side by side in each app: left to right (the default) and
// top-down (the reader's toggle, a cookie), each warm after its first open.
//
// Then the server is restarted on the same database and the folder opened once more: the first
// open after a restart (every in-process cache empty). And the demo's own pipeline page, warm.
//
// Named metrics: canvas_interactive_ms (warm, top-down, goal ≤ 1500), canvas_interactive_lr_ms
// (warm, left to right, goal ≤ 1500), canvas_interactive_cold_ms (first open after a server
// restart, goal ≤ 1500), canvas_interactive_deploy_ms (first open after a deploy),
// demo_pipeline_interactive_ms (the demo folder's page, warm, goal ≤ 600),
// trace_repaint_ms (first click on a column of the trace, goal ≤ 50), select_repaint_ms. The
// rows also split an open into the server's share (first byte) and the browser's (first byte →
// first card). BENCH_QUICK=1 (or --quick) runs a 300-model folder once, in well under 40 s.
//
//   npm run bench -- canvas        (BENCH_QUICK=1 for the small run)
//   npx tsx bench/canvas.ts        (standalone)
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { generateProject, writeProjectDir } from '../src/lib/server/demo/generator';
import { clickToRepaint, measureOpen, type OpenTiming } from '../tests/e2e/canvas-measure';
import { launchBrowser } from '../tests/e2e/server';
import { Client, freshDatabase, QUICK, startApp } from './app';
import { DIRECTION_COOKIE, type Direction } from '../src/lib/lineage/canvas-sizes';
import { environment, metric, OUT, printTable, stat, type BenchResult, type Row } from './lib';

/** Apps started (each: one cold open, then warm ones). */
const RUNS = Number(process.env.BENCH_RUNS ?? (QUICK ? 1 : 3));
const MODELS = QUICK ? 300 : 3000;
const COLUMN_EDGES = QUICK ? 20_000 : 200_000;

export async function projectDir(): Promise<string> {
	const name = `p${MODELS}-${COLUMN_EDGES / 1000}k`;
	const dir = path.join(OUT, name);
	if (!existsSync(path.join(dir, 'target', 'manifest.json'))) {
		process.stderr.write(`generating ${name} …\n`);
		await writeProjectDir(await generateProject({ models: MODELS, columnEdges: COLUMN_EDGES, seed: 1 }), dir);
	}
	return dir;
}

export async function deploy(url: string, cookie: string, dir: string): Promise<void> {
	const t = path.join(dir, 'target');
	const form = new FormData();
	form.set('path', 'f/big/p3000');
	form.set('descriptor', 'profile:\n  warehouse: main\ncolumn_lineage: true\n');
	form.set('manifest', new Blob([readFileSync(path.join(t, 'manifest.json'))]), 'manifest.json');
	form.set('column_lineage', new Blob([readFileSync(path.join(t, 'index', 'dbt.column_lineage.parquet'))]), 'dbt.column_lineage.parquet');
	form.set('node_columns', new Blob([readFileSync(path.join(t, 'index', 'dbt.node_columns.parquet'))]), 'dbt.node_columns.parquet');
	const headers = { cookie, origin: url };
	const f = await fetch(`${url}/api/w/demo/folders`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'big', readers: [], writers: [] }) });
	if (!f.ok) throw new Error(`folder: ${f.status} ${await f.text()}`);
	const r = await fetch(`${url}/api/w/demo/scripts/dbt/deploy`, { method: 'POST', headers, body: form });
	if (!r.ok) throw new Error(`deploy: ${r.status} ${(await r.text()).slice(0, 500)}`);
}

interface Sample extends OpenTiming {
	selectMs?: number;
	openGroupMs?: number;
	/** First click on a column (nothing traced → traced), then a click on another one. */
	traceMs?: number | null;
	retraceMs?: number | null;
	/** Columns in the traced component. */
	traceColumns?: number | null;
}

export async function run(): Promise<BenchResult> {
	const dir = await projectDir();
	const cold: Sample[] = [];
	const warm: Sample[] = [];
	const coldTb: Sample[] = [];
	const warmTb: Sample[] = [];
	const restart: Sample[] = [];
	const demo: Sample[] = [];
	const browser = await launchBrowser();
	try {
		for (let i = 0; i < RUNS; i++) {
			// bench/app.ts's server runs a private copy of build/: a rebuild by someone else in the
			// same checkout cannot pull chunks from under the page.
			const db = await freshDatabase('pglite', `canvas-${i}`);
			let app = await startApp(db, { TRIBUTARY_DEMO: '1' });
			try {
				let cookie = (await Client.login(app.url)).cookieHeader;
				await deploy(app.url, cookie, dir);
				const open = async (interact: boolean, direction: Direction = 'LR', folder = 'big'): Promise<Sample> => {
					const [name, value] = cookie.split('=');
					const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
					await ctx.addCookies([
						{ name, value, url: app.url },
						{ name: DIRECTION_COOKIE, value: direction, url: app.url }
					]);
					const page = await ctx.newPage();
					const s: Sample = await measureOpen(page, `${app.url}/w/demo/pipeline/${folder}`);
					if (interact) {
						s.selectMs = await clickToRepaint(page, '[data-testid=card]');
						await page.getByTestId('details-pane').waitFor();
						const before = Number(await page.getByTestId('canvas').getAttribute('data-cards'));
						if (await page.locator('[data-testid=group-card]').count()) {
							const t0 = Date.now();
							await page.locator('[data-testid=group-card]').first().click();
							// A layout the server refused (its time bound, on a loaded machine) ends the wait with its message.
							await page.waitForFunction((cards) => Number(document.querySelector('[data-testid=canvas]')!.getAttribute('data-cards')) !== cards || !!document.querySelector('.busy.error'), before, { timeout: 60_000 });
							if (await page.locator('.busy.error').count()) throw new Error(`opening a group: ${await page.locator('.busy.error').first().textContent()}`);
							s.openGroupMs = Date.now() - t0;
						}
						const box = page.getByRole('searchbox', { name: /search relations/i });
						await box.fill('int_');
						await box.press('Enter');
						await page.waitForFunction(() => document.querySelector('[data-testid=details-pane]')?.getAttribute('data-path')?.includes('int_'), undefined, { timeout: 60_000 });
						await page.waitForFunction(() => ['ready', 'empty'].includes(document.querySelector('[data-testid=trace-section]')?.getAttribute('data-trace-state') ?? ''), undefined, { timeout: 60_000 });
						const ready = (await page.getByTestId('trace-section').getAttribute('data-trace-state')) === 'ready';
						if (ready) {
							const bar = (await page.locator('[data-testid=column-trace] .bar span').first().textContent()) ?? '';
							s.traceColumns = Number(/^(\d+) columns/.exec(bar)?.[1] ?? NaN);
							s.traceMs = await clickToRepaint(page, '[data-testid=details-pane] .col.own');
							s.retraceMs = await clickToRepaint(page, '[data-testid=details-pane] .col.own:not(.traced)');
						} else s.traceMs = null;
					}
					await ctx.close();
					return s;
				};
				cold.push(await open(false));
				for (let j = 0; j < (i === 0 ? Math.max(RUNS, 2) : 1); j++) warm.push(await open(true));
				// The same folder top-down: its first open lays that direction out, later ones are cached.
				coldTb.push(await open(false, 'TB'));
				for (let j = 0; j < (i === 0 ? Math.max(RUNS, 2) : 1); j++) warmTb.push(await open(false, 'TB'));
				// The demo's folder: one open to warm it, then the measured ones.
				await open(false, 'LR', 'demo');
				for (let j = 0; j < 3; j++) demo.push(await open(false, 'LR', 'demo'));
				// A server restart on the same database: the first open after it.
				await app.stop();
				app = await startApp(db, { TRIBUTARY_DEMO: '1' });
				cookie = (await Client.login(app.url)).cookieHeader;
				restart.push(await open(false));
			} finally {
				await app.stop();
				await db.drop();
			}
		}
	} finally {
		await browser.close();
	}
	const pick = (xs: Sample[], k: keyof Sample) => stat(xs.map((x) => x[k]).filter((v): v is number => typeof v === 'number'));
	const row = (label: string, xs: Sample[]): Row => ({
		case: label,
		first_card_ms: pick(xs, 'firstCardMs'),
		interactive_ms: pick(xs, 'interactiveMs'),
		first_byte_ms: pick(xs, 'ttfbMs'),
		browser_ms: pick(xs, 'clientMs'),
		html_kb: pick(xs, 'htmlKb'),
		server_graph_ms: pick(xs, 'serverGraphMs'),
		server_layout_ms: pick(xs, 'serverLayoutMs'),
		cards_in_dom: pick(xs, 'cards'),
		edges_in_dom: pick(xs, 'edges'),
		heap_mb: pick(xs, 'heapMb')
	});
	const rows: Row[] = [
		row(`${MODELS}-model folder, left to right, first open after deploy (layout not cached)`, cold),
		row(`${MODELS}-model folder, left to right, later opens (fresh browser context)`, warm),
		row(`${MODELS}-model folder, top-down, first open in that direction`, coldTb),
		row(`${MODELS}-model folder, top-down, later opens (fresh browser context)`, warmTb),
		row(`${MODELS}-model folder, left to right, first open after a server restart`, restart),
		row('the demo folder (37 nodes), later opens (fresh browser context)', demo),
		{ case: 'click a card → repaint (selection lineage by CSS)', ms: pick(warm, 'selectMs') },
		{ case: 'open a group → its cards drawn (layout round trip)', ms: pick(warm, 'openGroupMs') },
		{ case: 'click a column → trace repaint (nothing traced before)', ms: pick(warm, 'traceMs'), columns: pick(warm, 'traceColumns') },
		{ case: 'click another column → trace repaint', ms: pick(warm, 'retraceMs'), columns: pick(warm, 'traceColumns') }
	];
	const warmI = stat(warm.map((s) => s.interactiveMs));
	const warmTbI = stat(warmTb.map((s) => s.interactiveMs));
	const coldI = stat(cold.map((s) => s.interactiveMs));
	const restartI = stat(restart.map((s) => s.interactiveMs));
	const demoI = stat(demo.map((s) => s.interactiveMs));
	const trace = pick(warm, 'traceMs');
	const cols = pick(warm, 'traceColumns');
	const size = `${MODELS}-model folder${QUICK ? ' (quick)' : ''}`;
	return {
		name: 'canvas',
		description: `the pipeline canvas of a ${size} in Chromium (median [min–max] of ${RUNS}+ runs)`,
		rows,
		ratios: [
			{ name: 'interactive cold / warm', value: coldI.median / warmI.median, note: 'what the first open after a deploy pays for layout' },
			{ name: 'interactive left to right / top-down', value: warmI.median / warmTbI.median, note: 'warm opens of the same folder, side by side' }
		],
		metrics: [
			metric('canvas_interactive_ms', warmTbI, 'ms', 'pglite', { goal: 1500, note: `navigation → first frame a drag moves, ${size}, top-down, later opens (fresh browser context)` }),
			metric('canvas_interactive_lr_ms', warmI, 'ms', 'pglite', { goal: 1500, note: `the same, left to right (the default)` }),
			metric('canvas_interactive_cold_ms', restartI, 'ms', 'pglite', { goal: 1500, note: `left to right, first open after a server restart (no in-process cache), ${size}` }),
			metric('canvas_interactive_deploy_ms', coldI, 'ms', 'pglite', { note: `left to right, first open after a deploy (layout and payload not cached), ${size}` }),
			metric('demo_pipeline_interactive_ms', demoI, 'ms', 'pglite', { goal: 600, note: 'navigation → first frame a drag moves, the demo folder (37 nodes), later opens (fresh browser context)' }),
			metric('trace_repaint_ms', trace, 'ms', 'pglite', {
				goal: 50,
				note: `click on a column → next frame, a ${cols.runs ? cols.median : '?'}-column component${QUICK ? ' (quick: smaller than the 2000 of the goal)' : ''}`
			}),
			metric('select_repaint_ms', pick(warm, 'selectMs'), 'ms', 'pglite', { note: 'click on a card → next frame (lineage lit by CSS, details pane opened)' })
		],
		environment: { chromium: '/usr/bin/chromium', runs: RUNS, models: MODELS, column_edges: COLUMN_EDGES }
	};
}

if (import.meta.url === `file://${process.argv[1]}`) {
	const started = Date.now();
	const r = await run();
	r.environment = { ...environment(), ...r.environment, seconds: Math.round((Date.now() - started) / 1000) };
	printTable(r);
}
