import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openapiDocument, operations } from './openapi';

// Values a param matcher accepts, for routes like [kind=upload_kind].
const MATCHER_VALUES: Record<string, string[]> = { upload_kind: ['deploy', 'preview'] };

function routeFiles(dir: string): string[] {
	return readdirSync(dir).flatMap((f) => {
		const p = path.join(dir, f);
		return statSync(p).isDirectory() ? routeFiles(p) : f === '+server.ts' ? [p] : [];
	});
}

/** Every (method, OpenAPI path) the code serves, read from src/routes. */
function servedEndpoints(): string[] {
	const root = path.resolve('src/routes');
	const out: string[] = [];
	for (const file of routeFiles(path.join(root, 'api'))) {
		const methods = [...readFileSync(file, 'utf8').matchAll(/export const (GET|POST|DELETE|PUT|PATCH)\b/g)].map((m) => m[1].toLowerCase());
		const segs = path.relative(root, path.dirname(file)).split(path.sep);
		let paths = [''];
		for (const s of segs) {
			const matcher = /^\[(\w+)=(\w+)\]$/.exec(s);
			const values = matcher ? MATCHER_VALUES[matcher[2]] : [s.replace(/^\[(?:\.\.\.)?(\w+)\]$/, '{$1}')];
			expect(values, `no MATCHER_VALUES for ${s}`).toBeDefined();
			paths = paths.flatMap((p) => values.map((v) => `${p}/${v}`));
		}
		for (const p of paths) for (const m of methods) out.push(`${m} ${p}`);
	}
	return out.sort();
}

describe('the OpenAPI document', () => {
	it('documents exactly the endpoints the code serves', () => {
		const documented = operations.map((o) => `${o.method} ${o.path}`).sort();
		expect(documented).toEqual(servedEndpoints());
	});

	it('is an OpenAPI 3.1 document whose path parameters are declared', () => {
		const doc = openapiDocument() as { openapi: string; paths: Record<string, Record<string, { parameters?: { name: string; in: string }[] }>> };
		expect(doc.openapi).toBe('3.1.0');
		for (const [p, ops] of Object.entries(doc.paths)) {
			const names = [...p.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
			for (const op of Object.values(ops)) {
				expect((op.parameters ?? []).filter((x) => x.in === 'path').map((x) => x.name)).toEqual(names);
			}
		}
	});
});
