// Columns on the canvas at 3000 models, in Debian's Chromium against the built app: the selected
// model's card expanded into its columns (click → the frame that shows them; another card's, whose
// details are read over HTTP first, beside it), and a column traced on the canvas (click → next
// frame) for the column with the largest trace in that model's column component; beside it, in the same run, the details pane's trace
// of the same model (today's trace) and a card selection. Measured as CANVAS.md measured (see
// tests/e2e/canvas-measure.ts). Needs `npm run build` first.
//
// The project's largest single-column trace is a few hundred columns (its components are wide, not
// deep), so after the first round the traced column is also copied by producer scripts into lake
// tables (WIDE), and the later rounds trace it across more than 2000 columns.
//
// Named metrics: expand_card_repaint_ms (goal ≤ 100), expand_card_fetch_ms, canvas_trace_repaint_ms
// (the wide case), canvas_trace_project_repaint_ms (goal ≤ 50 per
// click, across the number of columns the note gives). BENCH_QUICK=1 (or --quick) runs a
// 300-model folder.
//
//   npm run bench -- canvas-columns        (BENCH_QUICK=1 for the small run)
import type { Page } from 'playwright-core';
import { clickToDrawn, clickToRepaint, measureOpen } from '../tests/e2e/canvas-measure';
import { launchBrowser } from '../tests/e2e/server';
import { Client, freshDatabase, QUICK, startApp } from './app';
import { deploy, projectDir } from './canvas';
import { COLUMN_ROWS } from '../src/lib/lineage/canvas-columns';
import { buildDbtColumnGraph, traceColumn } from '../src/lib/lineage/column-trace';
import type { ColumnLineageAnswer, DbtProvenance } from '../src/lib/types/asset-graph';
import { environment, metric, printTable, stat, type BenchResult, type Row } from './lib';

const CLICKS = QUICK ? 3 : 7;

/** The wide case: producer scripts each copying the traced column into this many lake columns. */
const WIDE = QUICK ? { scripts: 4, columns: 50 } : { scripts: 40, columns: 50 };

/** Producer scripts copying one dbt column into WIDE.columns columns of a lake table each: the traced column's downstream grows by scripts × columns. */
function wideProducers(target: { path: string; column: string }): { path: string; content: string }[] {
	const [, schema, name] = target.path.split('/');
	return Array.from({ length: WIDE.scripts }, (_, i) => {
		const cols = Array.from({ length: WIDE.columns }, (_, k) => `    ${target.column} AS ${target.column}_${k}`).join(',\n');
		return {
			path: `f/big/wide_${String(i).padStart(2, '0')}`,
			content: `-- Bench producer: ${WIDE.columns} copies of ${schema}.${name}.${target.column}.\nATTACH 'ducklake:lake.ducklake' AS lake;\n\nCREATE TABLE lake.wide_${i} AS\nSELECT\n${cols}\nFROM ${schema}.${name};\n`
		};
	});
}

/** Columns a card shows as rows of their own. */
const OWN_ROWS = COLUMN_ROWS.max - 1;

/** Among the columns of `model`'s column component, the one with the largest trace that its card shows as a row. */
async function largestTrace(client: Client, model: string): Promise<{ path: string; column: string; size: number; largest: number; component: number }> {
	const answer = (await client.ok<ColumnLineageAnswer>(`/api/w/demo/assets/column_lineage?asset_path=${encodeURIComponent(model)}`)).body;
	const g = buildDbtColumnGraph(answer.edges);
	const ranked = [...g.nodes.keys()].map((id) => ({ id, size: traceColumn(id, g).size })).sort((a, b) => b.size - a.size);
	const schemas = new Map<string, string[]>();
	for (const c of ranked.slice(0, 200)) {
		const n = g.nodes.get(c.id)!;
		if (!schemas.has(n.path)) {
			const d = (await client.ok<DbtProvenance>(`/w/demo/relation?path=${encodeURIComponent(n.path)}`)).body;
			schemas.set(n.path, (d.column_schema ?? []).map((x) => x.name));
		}
		const at = schemas.get(n.path)!.indexOf(n.column);
		if (at >= 0 && at < OWN_ROWS) return { path: n.path, column: n.column, size: c.size, largest: ranked[0].size, component: g.nodes.size };
	}
	throw new Error(`no traced column of ${model}'s component has a row of its own`);
}

const tracedCount = async (page: Page) => Number(/· (\d+) columns/.exec((await page.getByTestId('canvas-traced').textContent()) ?? '')?.[1] ?? NaN);
const lineageReady = (page: Page) =>
	page.waitForFunction(() => document.querySelector('[data-testid=columns-bar]')?.getAttribute('data-lineage') === 'ready', undefined, { timeout: 120_000 });

export async function run(): Promise<BenchResult> {
	const dir = await projectDir();
	const browser = await launchBrowser();
	const expand: number[] = [];
	const expandFetch: number[] = [];
	const trace: number[] = [];
	const wideTrace: number[] = [];
	let wideColumns = 0;
	let wideEdges = 0;
	const paneTrace: number[] = [];
	const select: number[] = [];
	let columns = 0;
	let edges = 0;
	let model = '';
	let largest = 0;
	let component = 0;
	try {
		const db = await freshDatabase('pglite', 'canvas-columns');
		const app = await startApp(db, { TRIBUTARY_DEMO: '1' });
		try {
			const client = await Client.login(app.url);
			const cookie = client.cookieHeader;
			let target: { path: string; column: string; size: number; largest: number; component: number } | undefined;
			await deploy(app.url, cookie, dir);
			const [name, value] = cookie.split('=');
			for (let round = 0; round < (QUICK ? 2 : 3); round++) {
				const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
				await ctx.addCookies([{ name, value, url: app.url }]);
				const page = await ctx.newPage();
				await measureOpen(page, `${app.url}/w/demo/pipeline/big`);
				const box = page.getByRole('searchbox', { name: /search relations/i });
				await box.fill('int_');
				await box.press('Enter');
				await page.waitForFunction(() => document.querySelector('[data-testid=details-pane]')?.getAttribute('data-path')?.includes('int_'), undefined, { timeout: 60_000 });
				model = (await page.getByTestId('details-pane').getAttribute('data-path'))!;
				const card = `.svelte-flow__node[data-id="dbt:${model}"]`;
				await page.locator(card).waitFor();
				await page.waitForFunction(() => ['ready', 'empty'].includes(document.querySelector('[data-testid=trace-section]')?.getAttribute('data-trace-state') ?? ''), undefined, { timeout: 60_000 });
				if ((await page.getByTestId('trace-section').getAttribute('data-trace-state')) === 'ready') {
					paneTrace.push(await clickToRepaint(page, '[data-testid=details-pane] .col.own'));
				}
				// The selected model: its details are on the page already, nothing is read to draw its columns.
				expand.push(await clickToDrawn(page, `${card} [data-testid=expand-columns]`, `${card} [data-testid=card-columns] .row[data-column]`, { direct: true }));
				await lineageReady(page);
				// The column with the largest trace in this model's column component that has a row of
				// its own on its card (not folded into "+N more"), found from the same answers the page reads.
				target ??= await largestTrace(client, model);
				largest = target.largest;
				component = target.component;
				if (target.path !== model) {
					// A deep link to it: a bare name may be dbt's for several relations (a source's table and a model).
					await page.goto(`${app.url}/w/demo/pipeline/big?select=${encodeURIComponent(`dbt:${target.path}`)}`);
					await page.waitForFunction((p) => document.querySelector('[data-testid=details-pane]')?.getAttribute('data-path') === p, target.path, { timeout: 60_000 });
					const tcard = `.svelte-flow__node[data-id="dbt:${target.path}"]`;
					await page.locator(`${tcard} [data-testid=expand-columns]`).evaluate((el) => (el as HTMLElement).click());
					await page.locator(`${tcard} [data-testid=card-columns] .row[data-column]`).first().waitFor();
					await lineageReady(page);
				}
				const row = `.svelte-flow__node[data-id="dbt:${target.path}"] [data-testid=card-columns] .row[data-column="${target.column}"]`;
				const wide = round > 0;
				for (let i = 0; i < CLICKS; i++) {
					(wide ? wideTrace : trace).push(await clickToRepaint(page, row));
					const c = await tracedCount(page);
					const e = Number(await page.getByTestId('canvas-trace').getAttribute('data-edges'));
					if (wide) [wideColumns, wideEdges] = [c, e];
					else [columns, edges] = [c, e];
					await page.locator(row).click();
				}
				// From the next round on, the traced column also feeds the wide producers' lake tables.
				if (round === 0) for (const p of wideProducers(target)) await client.post('/api/w/demo/scripts/sql/deploy', p);
				// Another model: its details are read over HTTP first.
				const other = await page.locator(`.svelte-flow__node[data-id^="dbt:"]:not([data-id="dbt:${model}"])`).first().getAttribute('data-id');
				const otherCard = `.svelte-flow__node[data-id="${other}"]`;
				expandFetch.push(await clickToDrawn(page, `${otherCard} [data-testid=expand-columns]`, `${otherCard} [data-testid=card-columns] .row[data-column]`, { direct: true }));
				select.push(await clickToRepaint(page, `[data-testid=card]:not([data-path="${model}"])`, { direct: true }));
				await ctx.close();
			}
		} finally {
			await app.stop();
			await db.drop();
		}
	} finally {
		await browser.close();
	}
	const models = QUICK ? 300 : 3000;
	const e = stat(expand);
	const t = stat(trace);
	const p = stat(paneTrace);
	const rows: Row[] = [
		{ case: 'click a card → repaint (today: selection lit by CSS, pane opened)', ms: stat(select) },
		{ case: 'click a column in the details pane → trace repaint (today)', ms: p },
		{ case: 'click + on the selected card → its columns drawn (its details already on the page)', ms: e },
		{ case: 'click + on another card → its columns drawn (its details read over HTTP)', ms: stat(expandFetch) },
		{ case: `click a column on the canvas → trace repaint (${columns} columns, ${edges} edges drawn)`, ms: t },
		{ case: `the same column feeding ${WIDE.scripts} producers' lake tables → trace repaint (${wideColumns} columns, ${wideEdges} edges drawn)`, ms: stat(wideTrace) }
	];
	const size = `${models}-model folder${QUICK ? ' (quick)' : ''}`;
	return {
		name: 'canvas-columns',
		description: `columns on the canvas of a ${size} in Chromium (median [min–max])`,
		rows,
		ratios: [{ name: 'canvas trace / pane trace repaint', value: t.median / p.median, note: 'the same model, one run' }],
		metrics: [
			metric('expand_card_repaint_ms', e, 'ms', 'pglite', { goal: 100, note: `click on the selected card's + → the frame showing its typed columns, ${size}` }),
			metric('expand_card_fetch_ms', stat(expandFetch), 'ms', 'pglite', { note: `the same for a card not selected: its details read over HTTP first, ${size}` }),
			metric('canvas_trace_repaint_ms', stat(wideTrace), 'ms', 'pglite', {
				goal: 50,
				note: `click on a column of an expanded card → next frame, a trace of ${wideColumns} columns (${wideEdges} edges drawn): the project's largest single-column trace (${columns} columns, in a ${component}-column component) plus ${WIDE.scripts} producer scripts copying it into ${WIDE.columns} lake columns each, ${size}`
			}),
			metric('canvas_trace_project_repaint_ms', t, 'ms', 'pglite', {
				note: `the same click before the producers were deployed: the project's largest trace with a row of its own, ${columns} columns (${edges} edges drawn; the component's largest is ${largest}), ${size}`
			})
		],
		environment: { chromium: '/usr/bin/chromium', models, clicks: CLICKS, component_columns: component, largest_trace_columns: largest }
	};
}

if (import.meta.url === `file://${process.argv[1]}`) {
	const started = Date.now();
	const r = await run();
	r.environment = { ...environment(), ...r.environment, seconds: Math.round((Date.now() - started) / 1000) };
	printTable(r);
}
