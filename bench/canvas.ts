// The pipeline canvas at 3000 models, in Debian's Chromium against the built app: time to the
// first card and to the first frame a real drag moves (interactive), on a cold server (first
// open after a deploy: layout cache empty) and warm (every later open), each in a fresh
// browser context; then click → repaint for a card selection (canvas highlight), a group
// opening (a layout round trip), and a column trace. Measured as CANVAS.md measured (see
// tests/e2e/canvas-measure.ts). Needs `npx vite build` first.
//
//   npm run bench -- canvas        (once registered in bench/run.ts)
//   npx tsx bench/canvas.ts        (standalone)
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { generateProject, writeProjectDir } from '../src/lib/server/demo/generator';
import { clickToRepaint, measureOpen, type OpenTiming } from '../tests/e2e/canvas-measure';
import { apiLogin, launchBrowser, startApp } from '../tests/e2e/server';
import { environment, OUT, printTable, stat, type BenchResult, type Row } from './lib';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const MODELS = 3000;

async function projectDir(): Promise<string> {
	const dir = path.join(OUT, 'p3000-200k');
	if (!existsSync(path.join(dir, 'target', 'manifest.json'))) {
		process.stderr.write('generating p3000-200k …\n');
		await writeProjectDir(await generateProject({ models: MODELS, columnEdges: 200_000, seed: 1 }), dir);
	}
	return dir;
}

async function deploy(url: string, cookie: string, dir: string): Promise<void> {
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
	traceMs?: number | null;
}

export async function run(): Promise<BenchResult> {
	const dir = await projectDir();
	const cold: Sample[] = [];
	const warm: Sample[] = [];
	const browser = await launchBrowser();
	try {
		for (let i = 0; i < RUNS; i++) {
			const app = await startApp();
			try {
				const cookie = await apiLogin(app.url);
				await deploy(app.url, cookie, dir);
				const [name, value] = cookie.split('=');
				const open = async (interact: boolean): Promise<Sample> => {
					const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
					await ctx.addCookies([{ name, value, url: app.url }]);
					const page = await ctx.newPage();
					const s: Sample = await measureOpen(page, `${app.url}/w/demo/pipeline/big`);
					if (interact) {
						s.selectMs = await clickToRepaint(page, '[data-testid=card]');
						await page.getByTestId('details-pane').waitFor();
						const before = Number(await page.getByTestId('canvas').getAttribute('data-cards'));
						const t0 = Date.now();
						await page.locator('[data-testid=group-card]').first().click();
						await page.waitForFunction(`Number(document.querySelector('[data-testid=canvas]').getAttribute('data-cards')) !== ${before}`, undefined, { timeout: 60_000 });
						s.openGroupMs = Date.now() - t0;
						const box = page.getByRole('searchbox', { name: /search relations/i });
						await box.fill('int_');
						await box.press('Enter');
						await page.waitForFunction(`['ready','empty'].includes(document.querySelector('[data-testid=trace-section]')?.getAttribute('data-trace-state'))`, undefined, { timeout: 60_000 });
						const ready = (await page.getByTestId('trace-section').getAttribute('data-trace-state')) === 'ready';
						s.traceMs = ready ? await clickToRepaint(page, '[data-testid=details-pane] .col.own') : null;
					}
					await ctx.close();
					return s;
				};
				cold.push(await open(false));
				for (let j = 0; j < (i === 0 ? RUNS : 1); j++) warm.push(await open(true));
			} finally {
				await app.stop();
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
		server_graph_ms: pick(xs, 'serverGraphMs'),
		server_layout_ms: pick(xs, 'serverLayoutMs'),
		cards_in_dom: pick(xs, 'cards'),
		edges_in_dom: pick(xs, 'edges'),
		heap_mb: pick(xs, 'heapMb')
	});
	const rows: Row[] = [
		row(`${MODELS}-model folder, first open after deploy (layout not cached)`, cold),
		row(`${MODELS}-model folder, later opens (fresh browser context)`, warm),
		{ case: 'click a card → repaint (selection lineage by CSS)', ms: pick(warm, 'selectMs') },
		{ case: 'open a group → its cards drawn (layout round trip)', ms: pick(warm, 'openGroupMs') },
		{ case: 'click a column → trace repaint', ms: pick(warm, 'traceMs') }
	];
	const coldI = stat(cold.map((s) => s.interactiveMs)).median;
	const warmI = stat(warm.map((s) => s.interactiveMs)).median;
	return {
		name: 'canvas',
		description: `the pipeline canvas of a ${MODELS}-model folder in Chromium (median [min–max] of ${RUNS}+ runs)`,
		rows,
		ratios: [{ name: 'interactive cold / warm', value: coldI / warmI, note: 'what the first open after a deploy pays for layout' }],
		environment: { chromium: '/usr/bin/chromium', runs: RUNS }
	};
}

if (import.meta.url === `file://${process.argv[1]}`) {
	const started = Date.now();
	const r = await run();
	r.environment = { ...environment(), ...r.environment, seconds: Math.round((Date.now() - started) / 1000) };
	printTable(r);
}
