#!/usr/bin/env node
// Checks that a README rewrite dropped nothing: every heading, paragraph, list item, table row
// and code block of the README at a git ref must appear in today's README.md or docs/*.md.
// Text is compared after folding whitespace and link targets (a moved paragraph's links are
// rewritten relative to docs/). A block found only in part is reported with the share of its
// word 6-grams found, so an edit can be told from a loss.
//   node scripts/check-docs-coverage.mjs [git-ref]      (default: HEAD)
// Exits 1 when a block is below 90% of its 6-grams.
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';

const ref = process.argv[2] ?? 'HEAD';
const old = execFileSync('git', ['show', `${ref}:README.md`], { encoding: 'utf8', maxBuffer: 1 << 26 });

function normalize(text) {
	return text
		.replace(/\]\([^)]*\)/g, ']') // link targets
		.replace(/\[([^\]]*)\]/g, '$1') // link text brackets
		.replace(/\bdocs\//g, '')
		.replace(/\s+/g, ' ')
		.trim();
}

/** The README cut into blocks: headings, table rows, list items, fenced code, paragraphs. */
function blocks(text) {
	const out = [];
	const lines = text.split('\n');
	let para = [];
	const flush = () => {
		if (para.length) out.push(para.join('\n'));
		para = [];
	};
	for (let i = 0; i < lines.length; i++) {
		const line = lines[i];
		if (line.startsWith('```')) {
			flush();
			const code = [line];
			while (++i < lines.length && !lines[i].startsWith('```')) code.push(lines[i]);
			out.push(code.slice(1).join('\n'));
		} else if (/^#+ /.test(line)) {
			flush();
			out.push(line.replace(/^#+ /, ''));
		} else if (line.startsWith('|')) {
			flush();
			if (!/^\|[-| ]+\|$/.test(line)) out.push(line);
		} else if (/^\s*- /.test(line)) {
			flush();
			para.push(line.replace(/^\s*- /, ''));
		} else if (line.trim() === '') flush();
		else para.push(line);
	}
	flush();
	return out.map((b) => b.trim()).filter((b) => b.length > 0);
}

const grams = (words, n) => {
	const set = [];
	for (let i = 0; i + n <= words.length; i++) set.push(words.slice(i, i + n).join(' '));
	return set;
};

const docs = readdirSync('docs').filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`);
const corpus = normalize(['README.md', ...docs].map((f) => readFileSync(f, 'utf8')).join('\n\n'));
const corpusGrams = new Set(grams(corpus.split(' '), 6));

let exact = 0;
const partial = [];
const all = blocks(old);
for (const block of all) {
	const n = normalize(block);
	if (corpus.includes(n)) {
		exact++;
		continue;
	}
	const words = n.split(' ');
	const g = grams(words, Math.min(6, words.length));
	const found = g.filter((x) => corpusGrams.has(x) || corpus.includes(x)).length;
	partial.push({ share: g.length ? found / g.length : 0, block });
}
const lost = partial.filter((p) => p.share < 0.9);
console.log(`${all.length} blocks of README.md at ${ref}: ${exact} found verbatim, ${partial.length - lost.length} edited (≥ 90% of 6-grams found), ${lost.length} missing`);
for (const p of partial.sort((a, b) => a.share - b.share)) {
	console.log(`  ${(p.share * 100).toFixed(0).padStart(3)}%  ${p.block.replace(/\s+/g, ' ').slice(0, 140)}`);
}
process.exit(lost.length ? 1 : 0);
