// The design tokens are one set, in src/app.css: every custom property a component reads is
// defined there (or set by the component that owns it, like the canvas's card sizes), and the
// colours the sweep replaced are not written out again in a component's styles.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CARD, GROUP_CARD } from './lineage/canvas-sizes';

function files(dir: string, out: string[] = []): string[] {
	for (const name of readdirSync(dir)) {
		const p = path.join(dir, name);
		if (statSync(p).isDirectory()) files(p, out);
		else if (/\.(svelte|css|ts)$/.test(name) && !name.endsWith('.test.ts')) out.push(p);
	}
	return out;
}

const sources = files(path.resolve('src')).map((p) => ({ p, text: readFileSync(p, 'utf8') }));
const defined = new Set<string>();
for (const { text } of sources) {
	for (const m of text.matchAll(/(?:^|[\s;{"])(--[a-z0-9-]+)\s*:/g)) defined.add(m[1]);
	for (const m of text.matchAll(/style:(--[a-z0-9-]+)=/g)) defined.add(m[1]);
}

describe('design tokens', () => {
	it('every custom property read is defined somewhere', () => {
		const missing: string[] = [];
		for (const { p, text } of sources) {
			for (const m of text.matchAll(/var\((--[a-z0-9-]+)/g)) {
				// xyflow's own properties are defined by its stylesheet.
				if (!defined.has(m[1]) && !m[1].startsWith('--xy-')) missing.push(`${path.relative('src', p)}: ${m[1]}`);
			}
		}
		expect(missing).toEqual([]);
	});

	it.each(['#5f6b76', '#1d4e6b', '#a12a2a'])('%s is a token, not a literal in component styles', (hex) => {
		const uses = sources.filter(({ p, text }) => !p.endsWith('app.css') && text.toLowerCase().includes(hex)).map(({ p }) => path.relative('src', p));
		expect(uses).toEqual([]);
	});

	it('the canvas card sizes reach the CSS from canvas-sizes.ts, the numbers the layout uses', () => {
		const canvas = sources.find(({ p }) => p.endsWith('LineageCanvas.svelte'))!.text;
		expect(canvas).toContain('style:--card-w="{CARD.w}px"');
		expect(canvas).toContain('style:--group-card-h="{GROUP_CARD.h}px"');
		for (const card of ['AssetCard.svelte', 'GroupCard.svelte']) {
			const text = sources.find(({ p }) => p.endsWith(card))!.text;
			expect(text).not.toMatch(new RegExp(`width: (${CARD.w}|${GROUP_CARD.w})px`));
		}
	});

	// Colours live in app.css only: a literal in a component's styles drifts from the palette.
	// Comments and non-style code (an SVG export's own palette, say) are not styles.
	const UNSWEPT = new Set(['lib/components/canvas/ImpactPanel.svelte', 'lib/components/details/ColumnTrace.svelte', 'lib/components/details/DetailsPane.svelte', 'routes/w/[ws]/dbt/[...path]/+page.svelte', 'routes/w/[ws]/run/[id]/+page.svelte']);
	it('no component writes a colour literal in its styles (the palette is app.css)', () => {
		const literals: string[] = [];
		for (const { p, text } of sources) {
			const rel = path.relative('src', p);
			if (rel === 'app.css' || !p.endsWith('.svelte') || UNSWEPT.has(rel)) continue;
			const style = text.match(/<style[^>]*>([\s\S]*?)<\/style>/)?.[1] ?? '';
			for (const m of style.replace(/\/\*[\s\S]*?\*\//g, '').matchAll(/#[0-9a-fA-F]{3,8}\b/g)) literals.push(`${rel}: ${m[0]}`);
		}
		expect(literals).toEqual([]);
		const stillUnswept = [...UNSWEPT].filter((rel) => /#[0-9a-fA-F]{3,8}\b/.test(sources.find(({ p }) => path.relative('src', p) === rel)?.text.match(/<style[^>]*>([\s\S]*?)<\/style>/)?.[1] ?? ''));
		expect(stillUnswept, 'listed as unswept but without literals: remove them from UNSWEPT').toEqual([...UNSWEPT]);
	});
});
