// The producer-analysis thread: the same answer as the analysis in-process, the column lists
// loaded between its two steps, and a thread that fails (here: over its time bound) failing only
// the analysis it held.
import { describe, expect, it } from 'vitest';
import { CORPUS, CORPUS_CATALOG, CORPUS_WAREHOUSE } from '../../../../tests/support/producer-corpus';
import { analyzeProducer, type KnownColumns } from './analyze';
import { AnalysisThreadError, analyzeProducerOffThread } from './analysis-thread';

const catalog = (a: { kind: string; path: string }) => CORPUS_CATALOG[`${a.kind}://${a.path}`] ?? null;

/** The catalog's column lists for exactly the assets the thread asked for. */
function loader(asked: string[][]) {
	return async (assets: { kind: string; path: string }[]) => {
		asked.push(assets.map((a) => `${a.kind}://${a.path}`).sort());
		const out = new Map<string, KnownColumns>();
		for (const a of assets) {
			const known = catalog(a);
			if (known) out.set(`${a.kind}://${a.path}`, known);
		}
		return out;
	};
}

describe('analyzeProducerOffThread', () => {
	it('answers as the analysis does in-process, asking for the column lists of the assets the script names', async () => {
		for (const c of CORPUS.slice(0, 6)) {
			const asked: string[][] = [];
			const r = await analyzeProducerOffThread(c.sql, CORPUS_WAREHOUSE, loader(asked));
			expect(r.analysis).toEqual(analyzeProducer(c.sql, CORPUS_WAREHOUSE, catalog));
			expect(asked).toHaveLength(1);
			for (const read of c.reads) expect(asked[0]).toContain(read);
			expect(r.statements).toBeGreaterThan(0);
		}
	}, 120_000);

	it('a failure loading the column lists is the caller’s, and the thread serves the next script', async () => {
		const sql = CORPUS[2].sql;
		await expect(
			analyzeProducerOffThread(sql, CORPUS_WAREHOUSE, async () => {
				throw new Error('database down');
			})
		).rejects.toThrow('database down');
		const r = await analyzeProducerOffThread(sql, CORPUS_WAREHOUSE, loader([]));
		expect(r.analysis.columns.length).toBeGreaterThan(0);
	}, 120_000);

	it('a thread over its time bound fails that analysis with the reason; a fresh thread serves the next', async () => {
		const sql = CORPUS[2].sql;
		// A script long enough that its parse cannot end within the bound, however warm the thread.
		const long = Array.from({ length: 100 }, () => sql.trim().replace(/;\s*$/, '')).join(';\n');
		const failed = analyzeProducerOffThread(long, CORPUS_WAREHOUSE, loader([]), { ms: 1 });
		await expect(failed).rejects.toBeInstanceOf(AnalysisThreadError);
		await expect(failed).rejects.toThrow(/over the 0 s bound for analysing a script/);
		const r = await analyzeProducerOffThread(sql, CORPUS_WAREHOUSE, loader([]));
		expect(r.analysis).toEqual(analyzeProducer(sql, CORPUS_WAREHOUSE, catalog));
	}, 120_000);
});
