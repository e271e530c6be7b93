// The Node versions package.json declares are ones every installed dependency declares too
// (nested copies included), so the README, CI and `npm ci` do not contradict each other. The one
// dependency whose declaration is narrower is listed with what was measured instead.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve('.');
const ours = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;

/**
 * Dependencies that declare less than we do, and why that is not a contradiction. Every published
 * version of @polyglot-sql/sdk declares `>=22` (no version declares 20); its code uses no Node 22
 * API (no Promise.withResolvers, Array.fromAsync, process.getBuiltinModule, …) and the suite's
 * SQL-lineage tests run it on Node 20, as the test below does.
 */
const NARROWER: Record<string, string> = {
	'@polyglot-sql/sdk': '>=22'
};

function installed(dir: string, out: { name: string; version: string; node: string; at: string }[] = []) {
	if (!existsSync(dir)) return out;
	for (const entry of readdirSync(dir)) {
		if (entry.startsWith('.')) continue;
		const full = path.join(dir, entry);
		if (entry.startsWith('@')) {
			installed(full, out);
			continue;
		}
		const file = path.join(full, 'package.json');
		if (!existsSync(file)) continue;
		const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string; engines?: { node?: string } };
		if (pkg.engines?.node) out.push({ name: pkg.name ?? entry, version: pkg.version ?? '?', node: pkg.engines.node, at: path.relative(ROOT, full) });
		installed(path.join(full, 'node_modules'), out);
	}
	return out;
}

describe('the declared Node version', () => {
	const deps = installed(path.join(ROOT, 'node_modules'));

	it('is a range every installed dependency accepts, nested copies included', () => {
		expect(deps.length).toBeGreaterThan(20);
		const narrower = deps.filter((d) => !semver.subset(ours, d.node)).map((d) => `${d.name}@${d.version} (${d.at}): ${d.node}`);
		const expected = deps.filter((d) => NARROWER[d.name] === d.node).map((d) => `${d.name}@${d.version} (${d.at}): ${d.node}`);
		// A new narrower dependency fails here; so does a listed one that no longer is narrower.
		expect(narrower).toEqual(expected);
		expect(expected.length).toBe(Object.keys(NARROWER).length);
	});

	it('includes the Node this suite runs on', () => {
		expect(semver.satisfies(process.versions.node, ours)).toBe(true);
	});

	it('@polyglot-sql/sdk parses and generates SQL on this Node, whatever it declares', async () => {
		const { parse, generate } = await import('@polyglot-sql/sdk');
		const parsed = parse('select a, b + 1 as c from t join u using (id)', 'duckdb' as never) as { success: boolean; ast?: unknown };
		expect(parsed.success).toBe(true);
		const out = generate(parsed.ast as never, 'duckdb' as never) as { success: boolean; sql?: string[] };
		expect(out.success).toBe(true);
		expect(out.sql?.join(' ')).toMatch(/b \+ 1 AS c/i);
	});
});
