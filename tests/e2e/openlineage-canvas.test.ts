// An OpenLineage job on the pipeline canvas, in Debian's Chromium against the built app and its
// demo data: an Airflow-style job that reads the demo's dbt model `orders` and writes a lake
// table, sent to the receiver as a START and a COMPLETE with a columnLineage facet (naming both
// datasets the way Tributary's own export does). Its card sits between the dbt model and the
// lake table, coloured by its last run, and a column traced from `orders.amount` runs through it
// into the lake table's column. The screenshot goes to docs/screenshots (docs/openlineage.md).
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPENLINEAGE_REFERENCE } from '../support/openlineage-schemas';
import { apiLogin, launchBrowser, screenshotDir, startApp, type RunningApp } from './server';
import { Api, deployProducers, openCanvas, shot, signedInContext, watchErrors } from './support';

const DOCS_SHOTS = path.resolve('docs/screenshots');
const ORDERS = 'dbt:main/analytics/orders';
const NS = 'airflow://finance';
const JOB = 'finance_exports.orders_to_lake';
const PRODUCER = 'https://github.com/OpenLineage/OpenLineage/tree/1.54.0/integration/airflow';
const node = (id: string) => `.svelte-flow__node[data-id="${id}"]`;

function event(type: 'START' | 'COMPLETE', runId: string, at: string): Record<string, unknown> {
	const input = { namespace: 'dbt://demo/main', name: 'analytics.orders' };
	const field = (f: string, subtype: string) => ({ inputFields: [{ ...input, field: f, transformations: [{ type: 'DIRECT', subtype }] }] });
	return {
		eventType: type,
		eventTime: at,
		producer: PRODUCER,
		schemaURL: 'https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent',
		run: { runId },
		job: { namespace: NS, name: JOB },
		inputs: [input],
		outputs: [
			{
				namespace: 'ducklake://demo/main',
				name: 'orders_export',
				facets: {
					schema: {
						_producer: PRODUCER,
						_schemaURL: 'https://openlineage.io/spec/facets/1-1-1/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet',
						fields: [
							{ name: 'order_id', type: 'VARCHAR' },
							{ name: 'order_total', type: 'DECIMAL(18,2)' },
							{ name: 'ordered_on', type: 'DATE' }
						]
					},
					columnLineage: {
						_producer: PRODUCER,
						_schemaURL: 'https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json#/$defs/ColumnLineageDatasetFacet',
						fields: { order_id: field('order_id', 'IDENTITY'), order_total: field('amount', 'TRANSFORMATION'), ordered_on: field('order_date', 'IDENTITY') }
					}
				}
			}
		]
	};
}

describe('an OpenLineage job on the canvas (chromium, built app, demo workspace)', () => {
	let app: RunningApp;
	let api: Api;
	let browser: Browser;
	let member: BrowserContext;

	beforeAll(async () => {
		app = await startApp({ TRIBUTARY_OPENLINEAGE_SCHEMAS: OPENLINEAGE_REFERENCE });
		api = new Api(app.url, await apiLogin(app.url));
		await deployProducers(api);
		browser = await launchBrowser();
		member = await signedInContext(browser, app.url, api.cookie);
		mkdirSync(screenshotDir, { recursive: true });
		mkdirSync(DOCS_SHOTS, { recursive: true });
	}, 180_000);
	afterAll(async () => {
		await browser?.close();
		await app?.stop();
	});

	it('sits between the dbt model and the lake table it writes, and a column traced from orders runs through it', async () => {
		await api.ok('POST', '/api/w/demo/openlineage/namespaces', { namespace: NS, folder: 'demo' });
		const runId = randomUUID();
		const t0 = Date.now() - 60_000;
		let answer: { job: string; run: string } | null = null;
		for (const [type, at] of [['START', t0], ['COMPLETE', t0 + 42_000]] as const) {
			const r = await api.call('POST', '/api/w/demo/openlineage/api/v1/lineage', event(type, runId, new Date(at).toISOString()));
			expect(r.status, JSON.stringify(r.body)).toBe(201);
			answer = r.body;
		}
		expect(answer!.job).toBe('f/demo/finance/finance_exports_orders_to_lake');
		const page = await member.newPage();
		await page.setViewportSize({ width: 1440, height: 900 });
		const errors = watchErrors(page);
		await openCanvas(page, `${app.url}/w/demo/pipeline/demo`);
		await page.getByTestId('fit-all').click();

		// The job's card: an OL job, coloured by its last run (a success).
		const jobCard = page.locator('.svelte-flow__node .card.runnable.kind-openlineage');
		await expect.poll(() => jobCard.count(), { timeout: 30_000 }).toBe(1);
		expect(await jobCard.textContent()).toContain('orders_to_lake');
		// Between the model and the lake table: left of the lake table, right of orders.
		const x = (sel: string) => page.locator(sel).evaluate((el) => el.getBoundingClientRect().x);
		const lake = node('ducklake:main/orders_export');
		await expect.poll(() => page.locator(lake).count(), { timeout: 30_000 }).toBe(1);
		const [xOrders, xJob, xLake] = [await x(node(ORDERS)), await jobCard.evaluate((el) => el.getBoundingClientRect().x), await x(lake)];
		expect(xOrders).toBeLessThan(xJob);
		expect(xJob).toBeLessThan(xLake);

		// Trace orders.amount: it reaches order_total in the lake table through the job.
		await page.locator(`${node(ORDERS)} [data-testid=expand-columns]`).click();
		const amount = page.locator(`${node(ORDERS)} [data-testid=card-columns] .row[data-column=amount]`);
		await expect.poll(() => amount.count(), { timeout: 30_000 }).toBe(1);
		await page.locator(`${lake} [data-testid=expand-columns]`).click();
		await amount.click();
		await expect.poll(() => page.getByTestId('canvas-trace').getAttribute('data-edges').then(Number), { timeout: 30_000 }).toBeGreaterThan(0);
		const lit = page.locator(`${lake} [data-testid=card-columns] .row.lit`);
		await expect.poll(() => lit.evaluateAll((els) => els.map((e) => e.getAttribute('data-column'))), { timeout: 30_000 }).toContain('order_total');
		expect(await page.locator('[data-testid=canvas-trace] path.producer').count()).toBeGreaterThan(0);
		await shot(page, 'openlineage-canvas-trace-all');
		// Closer, centred on the job: orders, the job and the lake table, the trace through them.
		const box = (await jobCard.boundingBox())!;
		await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
		for (let i = 0; i < 2; i++) {
			await page.mouse.wheel(0, -240);
			await page.waitForTimeout(150);
		}
		await expect.poll(() => jobCard.evaluate((el) => el.getBoundingClientRect().width), { timeout: 10_000 }).toBeGreaterThan(box.width * 1.2);
		await shot(page, 'openlineage-canvas-trace');
		await page.screenshot({ path: path.join(DOCS_SHOTS, 'openlineage-canvas-trace.png') });
		expect(errors).toEqual([]);
		await page.close();
	}, 180_000);
});
