// How the canvas is timed, the same way CANVAS.md measured it, for the big-folder journey and
// bench/canvas.ts: in-page clocks relative to navigation start, frames by requestAnimationFrame.
//   first card   the first frame in which a card is visible
//   interactive  the first frame in which a real mouse drag on the pane has moved the viewport
//   click → repaint  a click's event time until a timer queued from the next frame
import type { Page } from 'playwright-core';

// What INIT and the probes below leave on the page's window. waitForFunction's predicates are
// one-expression arrow functions, not strings: a string predicate is compiled in the page, which
// its Content-Security-Policy refuses.
interface ProbeWindow {
	__canvas?: { firstCard: number | null; moved: number | null };
	__click?: number | null;
}

// Other page-side code is sent as strings: the test transpiler may wrap functions in helpers
// that do not exist in the page (and Runtime.evaluate is not subject to the page's policy).
const INIT = `
window.__canvas = { firstCard: null };
(function poll() {
	const n = document.querySelector('.svelte-flow__node');
	if (n && getComputedStyle(n).visibility !== 'hidden') window.__canvas.firstCard = performance.now();
	else requestAnimationFrame(poll);
})();
`;

export interface OpenTiming {
	firstCardMs: number;
	interactiveMs: number;
	/** Cards and edges in the DOM once interactive. */
	cards: number;
	edges: number;
	/** The server's own share (from the page's timing line): asset graph, layout. */
	serverGraphMs: number | null;
	serverLayoutMs: number | null;
	heapMb: number | null;
	/** Where the time went: the page's first byte (the server's load and render), the HTML read. */
	ttfbMs: number;
	htmlKb: number;
	/** The browser's share: first byte → first card. */
	clientMs: number;
}

/** An empty spot of the pane to start a drag on (not a card, not a frame header, not a control). */
async function emptySpot(page: Page): Promise<{ x: number; y: number }> {
	const spot = await page.evaluate(`(() => {
		const pane = document.querySelector('.svelte-flow__pane').getBoundingClientRect();
		for (let fy = 0.1; fy < 0.95; fy += 0.05) for (let fx = 0.1; fx < 0.7; fx += 0.05) {
			const x = pane.left + pane.width * fx, y = pane.top + pane.height * fy;
			const el = document.elementFromPoint(x, y);
			if (el && (el.classList.contains('svelte-flow__pane') || el.closest('.svelte-flow__node-frame'))) return { x, y };
		}
		return { x: pane.left + 5, y: pane.top + pane.height / 2 };
	})()`);
	return spot as { x: number; y: number };
}

export async function measureOpen(page: Page, url: string): Promise<OpenTiming> {
	await page.addInitScript(INIT);
	await page.goto(url);
	await page.waitForFunction(() => Boolean((window as unknown as ProbeWindow).__canvas) && (window as unknown as ProbeWindow).__canvas!.firstCard !== null, undefined, { timeout: 120_000 });
	const firstCardMs = (await page.evaluate('window.__canvas.firstCard')) as number;
	const { x, y } = await emptySpot(page);
	await page.evaluate(`(() => {
		const vp = document.querySelector('.svelte-flow__viewport');
		const start = vp.style.transform;
		window.__canvas.moved = null;
		(function watch() {
			if (vp.style.transform !== start) window.__canvas.moved = performance.now();
			else requestAnimationFrame(watch);
		})();
	})()`);
	await page.mouse.move(x, y);
	await page.mouse.down();
	for (let i = 1; i <= 10; i++) await page.mouse.move(x + i * 12, y + i * 6);
	await page.mouse.up();
	await page.waitForFunction(() => (window as unknown as ProbeWindow).__canvas!.moved !== null, undefined, { timeout: 30_000 });
	const interactiveMs = (await page.evaluate('window.__canvas.moved')) as number;
	const counts = (await page.evaluate(`({
		cards: document.querySelectorAll('.svelte-flow__node:not(.svelte-flow__node-frame)').length,
		edges: document.querySelectorAll('.svelte-flow__edge').length,
		timing: document.querySelector('[data-testid=canvas-counts]')?.getAttribute('title') ?? '',
		heap: performance.memory ? performance.memory.usedJSHeapSize : null,
		ttfb: performance.getEntriesByType('navigation')[0]?.responseStart ?? 0,
		html: performance.getEntriesByType('navigation')[0]?.encodedBodySize ?? 0
	})`)) as { cards: number; edges: number; timing: string; heap: number | null; ttfb: number; html: number };
	const num = (re: RegExp) => {
		const m = re.exec(counts.timing);
		return m ? Number(m[1]) : null;
	};
	return {
		firstCardMs: Math.round(firstCardMs),
		interactiveMs: Math.round(interactiveMs),
		cards: counts.cards,
		edges: counts.edges,
		serverGraphMs: num(/graph (\d+) ms/),
		serverLayoutMs: num(/layout (\d+) ms/),
		heapMb: counts.heap === null ? null : Math.round(counts.heap / 1e6),
		ttfbMs: Math.round(counts.ttfb),
		htmlKb: Math.round(counts.html / 1024),
		clientMs: Math.round(firstCardMs - counts.ttfb)
	};
}

/** Clicks `selector` and answers the milliseconds from the click to the frame after it (`direct`: as for clickToDrawn). */
export async function clickToRepaint(page: Page, selector: string, opts: { direct?: boolean } = {}): Promise<number> {
	await page.evaluate(`(() => {
		window.__click = null;
		document.addEventListener('click', (e) => {
			const t0 = e.timeStamp;
			requestAnimationFrame(() => setTimeout(() => { window.__click = performance.now() - t0; }, 0));
		}, { capture: true, once: true });
	})()`);
	if (opts.direct) await page.locator(selector).first().evaluate((el) => (el as HTMLElement).click());
	else await page.locator(selector).first().click();
	await page.waitForFunction(() => (window as unknown as ProbeWindow).__click !== null, undefined, { timeout: 30_000 });
	return Math.round((await page.evaluate('window.__click')) as number);
}

/**
 * Clicks `selector` and answers the milliseconds from the click to the frame that first shows
 * `drawn` (what the click waits on the network for, such as a card's columns).
 */
/**
 * `direct`: the click is dispatched on the element itself rather than at its point on screen, for
 * a control the view may have put under an overlay (the minimap) when the timing is what matters.
 */
export async function clickToDrawn(page: Page, selector: string, drawn: string, opts: { direct?: boolean } = {}): Promise<number> {
	await page.evaluate(`(() => {
		window.__click = null;
		const drawn = ${JSON.stringify(drawn)};
		document.addEventListener('click', (e) => {
			const t0 = e.timeStamp;
			(function poll() {
				if (document.querySelector(drawn)) setTimeout(() => { window.__click = performance.now() - t0; }, 0);
				else requestAnimationFrame(poll);
			})();
		}, { capture: true, once: true });
	})()`);
	if (opts.direct) await page.locator(selector).first().evaluate((el) => (el as HTMLElement).click());
	else await page.locator(selector).first().click();
	await page.waitForFunction(() => (window as unknown as ProbeWindow).__click !== null, undefined, { timeout: 30_000 });
	return Math.round((await page.evaluate('window.__click')) as number);
}
