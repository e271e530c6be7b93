// What the page journeys share: a signed-in API client for setting the stage (producers, the
// seeded runs, a big project), and a browser context carrying the session.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { demoProducers, generateProject, projectTarGz, type GeneratedProject } from '../../src/lib/server/demo/generator';
import { tarGz } from '../../src/lib/server/demo/tarball';
import { apiLogin, launchBrowser, NO_KEEP_ALIVE, screenshotDir, startApp, type RunningApp } from './server';
import { SANDBOX_INPUTS } from '../support/sandbox-inputs';

export class Api {
	constructor(
		readonly url: string,
		readonly cookie: string
	) {}

	async call(method: string, p: string, body?: unknown): Promise<{ status: number; body: any }> {
		// A fresh connection per call: see NO_KEEP_ALIVE.
		const headers: Record<string, string> = { ...NO_KEEP_ALIVE, cookie: this.cookie, origin: this.url };
		let payload: BodyInit | undefined;
		if (body instanceof FormData) payload = body;
		else if (body !== undefined) {
			headers['content-type'] = 'application/json';
			payload = JSON.stringify(body);
		}
		const r = await fetch(`${this.url}${p}`, { method, headers, body: payload });
		const text = await r.text();
		let parsed: unknown = text;
		try {
			parsed = JSON.parse(text);
		} catch {
			/* not JSON */
		}
		return { status: r.status, body: parsed };
	}

	async ok(method: string, p: string, body?: unknown): Promise<any> {
		const r = await this.call(method, p, body);
		expect(r.status, `${method} ${p}: ${JSON.stringify(r.body).slice(0, 500)}`).toBeLessThan(300);
		return r.body;
	}
}

/** The demo's two producer scripts (lake tables fed by dbt relations), deployed unless the seed did. */
export async function deployProducers(api: Api): Promise<void> {
	const g = await api.ok('GET', '/api/w/demo/assets/graph?folder=demo');
	const present = new Set((g.runnables as { path: string }[]).map((r) => r.path));
	for (const p of demoProducers) {
		if (!present.has(p.path)) await api.ok('POST', '/api/w/demo/scripts/sql/deploy', { path: p.path, content: p.content });
	}
}

/** The runs the demo seed stored (each the only job of its kind and status), newest first in the list. */
export async function seededRuns(api: Api): Promise<{ succeeded: string; failed: string; preview: string }> {
	const only = async (kind: string, status: string): Promise<string> => {
		const jobs = (await api.ok('GET', `/api/w/demo/jobs/list?kind=${kind}&status=${status}`)) as { id: string; script_path: string }[];
		expect(jobs.map((j) => j.script_path)).toEqual(['f/demo/shop']);
		return jobs[0].id;
	};
	return { succeeded: await only('recorded', 'success'), failed: await only('recorded', 'failure'), preview: await only('preview', 'success') };
}

/** The run page's totals line for a generated build, from the generator's own counts. */
export function totalsLine(project: GeneratedProject): string {
	const r = project.meta.results;
	const total = Object.values(r).reduce((a, b) => a + b, 0);
	return `${r.success + r.pass} passed, ${r.warn} warned, ${r.error + r.fail} failed, ${r.skipped} skipped of ${total}`;
}

// Blob wants an ArrayBuffer-backed view; the generator's bytes may sit on any buffer.
const bytes = (u: Uint8Array) => new Uint8Array(u);

/**
 * Deploys a generated project at `scriptPath`: its artifacts and its files (plus `extraFiles`),
 * or its artifacts alone with `withProject: false`.
 */
export async function deployProject(
	api: Api,
	project: GeneratedProject,
	scriptPath: string,
	opts: { extraFiles?: Map<string, string>; withProject?: boolean } = {}
): Promise<any> {
	const { extraFiles, withProject = true } = opts;
	const form = new FormData();
	form.set('path', scriptPath);
	form.set('descriptor', 'profile:\n  warehouse: main\ncolumn_lineage: true\n');
	form.set('manifest', new Blob([JSON.stringify(project.manifest)]), 'manifest.json');
	form.set('column_lineage', new Blob([bytes(project.columnLineageParquet)]), 'dbt.column_lineage.parquet');
	form.set('node_columns', new Blob([bytes(project.nodeColumnsParquet)]), 'dbt.node_columns.parquet');
	if (!withProject) {
		// Artifacts only: the version can be browsed, not run.
	} else if (extraFiles) {
		const files = new Map<string, string | Uint8Array>(project.projectFiles);
		for (const [k, v] of extraFiles) files.set(k, v);
		form.set('project', new Blob([bytes(tarGz(files))]), 'project.tar.gz');
	} else {
		form.set('project', new Blob([bytes(await projectTarGz(project))]), 'project.tar.gz');
	}
	// Live at once, as these journeys need it: pinning has tests of its own (tests/runner/real-dbt, runs).
	if (withProject) form.set('pin', 'at_first_run');
	return api.ok('POST', '/api/w/demo/scripts/dbt/deploy', form);
}

/** A scratch file the stand-in dbt can read (a recorded log, a manifest). */
export function scratchFile(name: string, text: string): string {
	// Where the sandboxed stand-in dbt may read it.
	const dir = mkdtempSync(path.join(SANDBOX_INPUTS, 'e2e-files-'));
	const f = path.join(dir, name);
	writeFileSync(f, text);
	return f;
}

/** A journey's stage on the demo workspace: the built app as `npm start` runs it, the producers deployed, a browser and a signed-in context. */
export interface DemoBrowser {
	app: RunningApp;
	api: Api;
	browser: Browser;
	member: BrowserContext;
}

/**
 * Registers the suite's beforeAll/afterAll for a demo-workspace journey (call it inside the
 * describe) and returns the stage, filled in once beforeAll has run.
 */
export function useDemoBrowser(): DemoBrowser {
	const stage = {} as DemoBrowser;
	beforeAll(async () => {
		stage.app = await startApp();
		stage.api = new Api(stage.app.url, await apiLogin(stage.app.url));
		await deployProducers(stage.api);
		stage.browser = await launchBrowser();
		stage.member = await signedInContext(stage.browser, stage.app.url, stage.api.cookie);
		mkdirSync(screenshotDir, { recursive: true });
	}, 180_000);
	afterAll(async () => {
		await stage.browser?.close();
		await stage.app?.stop();
	});
	return stage;
}

export async function signedInContext(browser: Browser, url: string, cookie: string): Promise<BrowserContext> {
	const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
	const [name, value] = cookie.split('=');
	await ctx.addCookies([{ name, value, url }]);
	return ctx;
}

/** A screenshot of the page's viewport, test-results/screenshots/<name>.png. */
export const shot = (page: Page, name: string) => page.screenshot({ path: path.join(screenshotDir, `${name}.png`) });

/** The page's uncaught errors and console errors, collected as they happen. */
export function watchErrors(page: Page): string[] {
	const errors: string[] = [];
	page.on('pageerror', (e) => errors.push(e.message));
	page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
	return errors;
}

/** Opens a canvas page and waits for its first card. */
export async function openCanvas(page: Page, url: string): Promise<void> {
	await page.goto(url);
	await page.locator('[data-testid=card], [data-testid=group-card]').first().waitFor({ timeout: 60_000 });
}

/**
 * A 1440×900 page of the demo's pipeline with the relation `path` selected, once its details
 * pane has read the relation's trace; with the page's errors collected from the start.
 */
export async function openDemoRelation(demo: DemoBrowser, path: string): Promise<{ page: Page; pane: Locator; errors: string[] }> {
	const page = await demo.member.newPage();
	await page.setViewportSize({ width: 1440, height: 900 });
	const errors = watchErrors(page);
	await openCanvas(page, `${demo.app.url}/w/demo/pipeline/demo?select=${encodeURIComponent(path)}`);
	const pane = page.getByTestId('details-pane');
	await expect.poll(() => pane.getByTestId('trace-section').getAttribute('data-trace-state'), { timeout: 30_000 }).toBe('ready');
	return { page, pane, errors };
}

/**
 * The smallest card text as rendered: each text element's font size times the viewport's scale
 * (the card's rendered width over its layout width), over the cards on screen.
 */
export async function smallestCardTextPx(page: Page): Promise<{ px: number; zoom: number; cards: number }> {
	return (await page.evaluate(`(() => {
		const pane = document.querySelector('.svelte-flow').getBoundingClientRect();
		let px = Infinity, zoom = 0, cards = 0;
		for (const card of document.querySelectorAll('[data-testid=card], [data-testid=group-card]')) {
			const r = card.getBoundingClientRect();
			if (r.right < pane.left || r.left > pane.right || r.bottom < pane.top || r.top > pane.bottom) continue;
			cards++;
			zoom = r.width / card.offsetWidth;
			for (const el of card.querySelectorAll('span')) {
				if (!el.textContent.trim() || el.getBoundingClientRect().width === 0) continue;
				px = Math.min(px, parseFloat(getComputedStyle(el).fontSize) * zoom);
			}
		}
		return { px, zoom, cards };
	})()`)) as { px: number; zoom: number; cards: number };
}
