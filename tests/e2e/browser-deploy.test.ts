// Deploying from the browser and the clickable diff, in Debian's Chromium against the built app
// and its demo data: a target/ folder's files picked on a folder page deploy a new project (its
// damaged index said prominently as a warning), a real drag-and-drop on the project page stores
// a preview and shows its diff, a project is deleted after a confirmation naming what goes, and
// a changed model clicked in the diff list is selected and framed on the graph that holds it.
// Expectations come from the API's own answers. Screenshots go to docs/screenshots (the docs show them).
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { DEMO_EARLIER, generateProject } from '../../src/lib/server/demo/generator';
import { describeFixtures, fixture } from '../support/fixtures';
import { gotoHydrated, screenshotDir } from './server';
import { openCanvas, shot, useDemoBrowser, watchErrors } from './support';

const DOCS_SHOTS = path.resolve('docs/screenshots');

async function docShot(page: Page, name: string): Promise<void> {
	await shot(page, name);
	mkdirSync(DOCS_SHOTS, { recursive: true });
	copyFileSync(path.join(screenshotDir, `${name}.png`), path.join(DOCS_SHOTS, `${name}.png`));
}

/** Whether the card of `assetPath` lies wholly inside the canvas's visible pane. */
async function cardInView(page: Page, assetPath: string): Promise<boolean> {
	return page.evaluate((p) => {
		const pane = document.querySelector('.svelte-flow')!.getBoundingClientRect();
		const card = document.querySelector(`[data-testid=card][data-path="${p}"]`);
		if (!card) return false;
		const r = card.getBoundingClientRect();
		return r.width > 0 && r.left >= pane.left && r.top >= pane.top && r.right <= pane.right && r.bottom <= pane.bottom;
	}, assetPath);
}

/** Records whether the upload's progress bar was ever on the page (it may come and go between polls). */
async function watchProgress(page: Page): Promise<void> {
	await page.evaluate(() => {
		const w = window as unknown as { sawProgress: boolean };
		w.sawProgress = false;
		new MutationObserver(() => {
			if (document.querySelector('[data-testid=deploy-progress] progress')) w.sawProgress = true;
		}).observe(document.body, { subtree: true, childList: true });
	});
}

describeFixtures('deploy from the browser, and the clickable diff (chromium, built app, demo workspace)', () => {
	const demo = useDemoBrowser();
	const JAFFLE = fixture('jaffle-shop-1.12-duckdb-docs-generate');
	const INDEX = fixture('constructed-index', 'jaffle-shop-1.12', 'index');

	it("a target/ folder's files picked on a folder page deploy a new project; its damaged index is a prominent warning", async () => {
		await demo.api.ok('POST', '/api/w/demo/folders', { name: 'dropped', readers: [], writers: [] });
		const target = path.join(tmpdir(), `tributary-drop-${process.pid}`, 'target');
		mkdirSync(path.join(target, 'index'), { recursive: true });
		copyFileSync(`${JAFFLE}/manifest.json`, path.join(target, 'manifest.json'));
		copyFileSync(`${JAFFLE}/catalog.json`, path.join(target, 'catalog.json'));
		copyFileSync(`${INDEX}/dbt.node_columns.parquet`, path.join(target, 'index', 'dbt.node_columns.parquet'));
		// The lineage half of the index cut short: a file that starts right and ends nowhere.
		const lineage = readFileSync(`${INDEX}/dbt.column_lineage.parquet`);
		writeFileSync(path.join(target, 'index', 'dbt.column_lineage.parquet'), lineage.subarray(0, Math.floor(lineage.length / 2)));

		const page = await demo.member.newPage();
		const errors = watchErrors(page);
		await gotoHydrated(page, `${demo.app.url}/w/demo/pipeline/dropped`);
		await page.getByTestId('deploy-toggle').click();
		const drop = page.getByTestId('deploy-drop');
		await drop
			.getByTestId('deploy-input')
			.setInputFiles(['manifest.json', 'catalog.json', 'index/dbt.node_columns.parquet', 'index/dbt.column_lineage.parquet'].map((f) => path.join(target, f)));
		// Sorted as the CLI sorts a target/ directory; nothing is refused.
		await expect.poll(() => drop.getByTestId('deploy-files').textContent()).toContain('manifest');
		expect(await drop.getByTestId('deploy-files').textContent()).toMatch(/column_lineage.*dbt\.column_lineage\.parquet/s);
		expect(await drop.getByTestId('deploy-refused').count()).toBe(0);
		await drop.getByTestId('deploy-name').fill('jaffle');
		await watchProgress(page);
		await drop.getByTestId('deploy-start').click();

		const result = drop.getByTestId('deploy-result');
		await result.waitFor({ timeout: 60_000 });
		const warnings = drop.getByTestId('deploy-warnings');
		await expect.poll(() => warnings.textContent()).toContain('dbt.column_lineage.parquet');
		expect(await warnings.getAttribute('role')).toBe('alert');
		expect(await page.evaluate(() => (window as unknown as { sawProgress: boolean }).sawProgress)).toBe(true);
		// The counts the server stored, as its deploy job recorded them.
		const jobs = (await demo.api.ok('GET', '/api/w/demo/jobs/list?kind=deploy')) as { id: string; script_path: string }[];
		const deployed = jobs.find((j) => j.script_path === 'f/dropped/jaffle')!;
		const job = await demo.api.ok('GET', `/api/w/demo/jobs/get/${deployed.id}?logs=false`);
		await expect.poll(() => drop.getByTestId('deploy-summary').textContent()).toContain(`Deployed f/dropped/jaffle, version ${job.script_hash}: ${job.result.nodes} nodes`);
		expect(job.result.warnings.some((w: string) => w.startsWith('dbt.column_lineage.parquet'))).toBe(true);
		// Whatever jobs it queued are followed to their end here.
		for (const j of await drop.getByTestId('deploy-job').all()) await expect.poll(() => j.textContent(), { timeout: 90_000 }).toMatch(/success|failure|canceled/);
		// The folder's canvas shows the new project (the page re-read its graph once it was stored).
		await expect.poll(() => page.getByTestId('canvas-counts').textContent(), { timeout: 30_000 }).not.toMatch(/^\s*0 nodes/);
		expect(await drop.getByTestId('deploy-open').getAttribute('href')).toBe('/w/demo/dbt/f/dropped/jaffle');
		await docShot(page, 'deploy-drop-folder-1440');
		expect(errors).toEqual([]);
		await page.close();
	}, 180_000);

	it('a real drag-and-drop on the project page stores a preview and shows its diff against the newest version', async () => {
		const changed = await generateProject({ change: true });
		const files = {
			'manifest.json': Buffer.from(JSON.stringify(changed.manifest)).toString('base64'),
			'dbt.column_lineage.parquet': Buffer.from(changed.columnLineageParquet).toString('base64'),
			'dbt.node_columns.parquet': Buffer.from(changed.nodeColumnsParquet).toString('base64')
		};
		const page = await demo.member.newPage();
		const errors = watchErrors(page);
		await openCanvas(page, `${demo.app.url}/w/demo/dbt/f/demo/shop`);
		await page.locator('html[data-hydrated]').waitFor({ state: 'attached' });
		const drop = page.getByTestId('deploy-drop');
		// The DataTransfer a drag from the file manager carries, dropped on the zone.
		const dataTransfer = await page.evaluateHandle((fs) => {
			const dt = new DataTransfer();
			for (const [name, b64] of Object.entries(fs)) {
				const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
				dt.items.add(new File([bytes], name));
			}
			return dt;
		}, files);
		const zone = drop.getByTestId('drop-zone');
		await zone.dispatchEvent('dragover', { dataTransfer });
		await zone.dispatchEvent('drop', { dataTransfer });
		await expect.poll(() => drop.getByTestId('deploy-files').textContent()).toContain('node_columns');
		await drop.getByLabel(/a preview/).check();
		await drop.getByTestId('deploy-start').click();
		const diff = drop.getByTestId('deploy-diff');
		await diff.waitFor({ timeout: 90_000 });
		const previews = (await demo.api.ok('GET', '/api/w/demo/jobs/list?kind=preview')) as { id: string }[];
		const expected = await demo.api.ok('GET', `/api/w/demo/dbt/diff?path=f/demo/shop&to=${previews[0].id}`);
		expect(expected.models.added).toEqual(['model.coffee_shop.store_daily_revenue']);
		await expect.poll(() => diff.textContent()).toContain(`${expected.models.added.length} added, ${expected.models.removed.length} removed, ${expected.models.modified.length} modified`);
		expect(await diff.locator('a').getAttribute('href')).toBe(`/w/demo/run/${previews[0].id}`);
		await docShot(page, 'deploy-drop-preview-1440');
		expect(errors).toEqual([]);
		await page.close();
	}, 180_000);

	it('a changed model clicked in the diff is selected and framed on the graph that holds it', async () => {
		const versions = (await demo.api.ok('GET', '/api/w/demo/jobs/list?kind=deploy')) as { script_path: string; script_hash: string; status: string }[];
		const shop = versions.filter((v) => v.script_path === 'f/demo/shop' && v.status === 'success');
		expect(shop).toHaveLength(2);
		const [current, earlier] = shop; // newest first
		const page = await demo.member.newPage();
		const errors = watchErrors(page);
		// The earlier version on the canvas; the diff from it to the newest.
		await openCanvas(page, `${demo.app.url}/w/demo/dbt/f/demo/shop?v=${earlier.script_hash}`);
		await page.locator('html[data-hydrated]').waitFor({ state: 'attached' });
		await page.getByTestId('compare-from').selectOption(earlier.script_hash);
		await page.getByTestId('compare-to').selectOption('latest');
		const panel = page.getByTestId('diff-panel');
		await expect.poll(() => panel.getByTestId('diff-summary').textContent(), { timeout: 20_000 }).toContain('1 added');
		await docShot(page, 'diff-versions-1440');

		// A modified model exists in the graph shown: selected here, framed.
		const stores = 'main/analytics/stores';
		await panel.locator('[data-testid=diff-item]', { hasText: 'stores' }).getByTestId('diff-locate').click();
		await expect.poll(() => page.getByTestId('details-pane').getAttribute('data-path')).toBe(stores);
		await expect.poll(() => cardInView(page, stores)).toBe(true);
		expect(new URL(page.url()).searchParams.get('v')).toBe(earlier.script_hash);

		// The added one exists only in the newer graph: the page moves to that version, selects it, frames it.
		const added = 'main/analytics/fct_payments';
		await panel.locator('[data-testid=diff-item][data-class=added]', { hasText: DEMO_EARLIER.addedModel.split('.').at(-1)! }).getByTestId('diff-locate').click();
		await expect.poll(() => new URL(page.url()).searchParams.get('v')).toBe(current.script_hash);
		await expect.poll(() => page.getByTestId('details-pane').getAttribute('data-path'), { timeout: 20_000 }).toBe(added);
		await expect.poll(() => cardInView(page, added)).toBe(true);
		expect(await page.locator('[data-testid=versions] tr.current a').textContent()).toBe(current.script_hash.slice(0, 10));
		// The compared refs stay as picked.
		expect(await page.getByTestId('compare-from').inputValue()).toBe(earlier.script_hash);
		await docShot(page, 'diff-click-selects-1440');
		expect(errors).toEqual([]);
		await page.close();
	}, 180_000);

	it('a writer deletes a project after a confirmation naming its versions, graphs and runs', async () => {
		const page = await demo.member.newPage();
		const errors = watchErrors(page);
		await openCanvas(page, `${demo.app.url}/w/demo/dbt/f/dropped/jaffle`);
		await page.locator('html[data-hydrated]').waitFor({ state: 'attached' });
		const footprint = await demo.api.ok('GET', '/api/w/demo/scripts/p/f/dropped/jaffle');
		await page.getByTestId('delete-open').click();
		const confirm = page.getByTestId('delete-confirm');
		await expect.poll(() => confirm.textContent()).toContain(`${footprint.versions} version${footprint.versions === 1 ? '' : 's'}, ${footprint.graphs} stored graph`);
		await docShot(page, 'delete-project-confirm-1440');
		await page.getByTestId('delete-confirm-button').click();
		await page.waitForURL(`${demo.app.url}/w/demo`, { timeout: 30_000 });
		expect((await demo.api.call('GET', '/api/w/demo/scripts/p/f/dropped/jaffle')).status).toBe(404);
		expect(errors).toEqual([]);
		await page.close();
	}, 120_000);

	it("a writer deletes a producer from its folder's pipeline, with it selected", async () => {
		const producer = 'f/demo/producers/monthly_city_revenue';
		const page = await demo.member.newPage();
		const errors = watchErrors(page);
		await openCanvas(page, `${demo.app.url}/w/demo/pipeline/demo?${new URLSearchParams({ select: `script:${producer}` })}`);
		await page.locator('html[data-hydrated]').waitFor({ state: 'attached' });
		await page.getByTestId('deploy-toggle').click();
		const panel = page.getByTestId('deploy-panel');
		await panel.getByTestId('delete-open').click();
		await expect.poll(() => panel.getByTestId('delete-confirm').textContent()).toContain(`Delete ${producer}?`);
		expect(await panel.getByTestId('delete-confirm').textContent()).toContain('1 version');
		await panel.getByTestId('delete-confirm-button').click();
		await expect.poll(async () => (await demo.api.call('GET', `/api/w/demo/scripts/p/${producer}`)).status).toBe(404);
		// The canvas no longer draws it.
		await expect.poll(() => page.locator(`.svelte-flow__node[data-id="script:${producer}"]`).count(), { timeout: 20_000 }).toBe(0);
		expect(errors).toEqual([]);
		await page.close();
	}, 120_000);
});
