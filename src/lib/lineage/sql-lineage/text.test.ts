import { describe, expect, it } from 'vitest';
import { blankComments, lineIndex, splitStatements, statementHead } from './text';

describe('blankComments and splitStatements', () => {
	it('blanks comments (offsets kept) but not text inside strings, identifiers or dollar quotes', () => {
		const sql = `select 1; -- a; comment\n// whole-line; slash\nselect '--;x', "a;--b", $$ ; -- $$ /* c; */ from t; select 2 // not a comment`;
		const code = blankComments(sql);
		expect(code).toHaveLength(sql.length);
		expect(code.split('\n').length).toBe(sql.split('\n').length);
		expect(code).not.toContain('a; comment');
		expect(code).not.toContain('whole-line');
		expect(code).toContain(`'--;x'`);
		expect(code).toContain(`"a;--b"`);
		expect(code).toContain('$$ ; -- $$');
		expect(code).toContain('// not a comment');
		const st = splitStatements(code);
		expect(st.map((s) => s.text.replace(/\s+/g, ' '))).toEqual([
			'select 1',
			`select '--;x', "a;--b", $$ ; -- $$ from t`,
			'select 2 // not a comment'
		]);
		expect(sql.slice(st[1].start, st[1].start + 6)).toBe('select');
		expect(lineIndex(sql)(st[1].start)).toBe(3);
	});

	it.each([
		['BigQuery', 'CREATE PROCEDURE ds.p(a INT64)\nBEGIN\n  INSERT INTO t2 (c) SELECT c FROM t1;\n  UPDATE t3 SET c = 1;\nEND'],
		['T-SQL / Oracle', 'CREATE OR ALTER PROCEDURE p AS BEGIN INSERT INTO t2 (c) SELECT c FROM t1; UPDATE t3 SET c = 1; END'],
		['a bare block', 'BEGIN INSERT INTO t2 (c) SELECT c FROM t1; UPDATE t3 SET c = 1; END']
	])('%s: the statements of a procedure body or block are statements of their own', (_, sql) => {
		const st = splitStatements(blankComments(sql));
		expect(st.map((s) => s.text.replace(/\s+/g, ' '))).toEqual(['INSERT INTO t2 (c) SELECT c FROM t1', 'UPDATE t3 SET c = 1', 'END']);
		expect(sql.slice(st[0].start, st[0].end)).toBe(st[0].text);
	});

	it('a transaction BEGIN and a dollar-quoted procedure body are left as they are', () => {
		expect(splitStatements('BEGIN; INSERT INTO t SELECT 1; COMMIT').map((s) => s.text)).toEqual(['BEGIN', 'INSERT INTO t SELECT 1', 'COMMIT']);
		expect(splitStatements('BEGIN TRANSACTION; SELECT 1').map((s) => s.text)).toEqual(['BEGIN TRANSACTION', 'SELECT 1']);
		const pg = 'CREATE PROCEDURE p() LANGUAGE plpgsql AS $$ BEGIN INSERT INTO t SELECT 1; END $$';
		expect(splitStatements(pg).map((s) => s.text)).toEqual([pg]);
	});

	it('an unterminated string or comment runs to the end without throwing', () => {
		expect(splitStatements(blankComments(`select 'abc; select 2`))).toHaveLength(1);
		expect(splitStatements(blankComments(`select 1; /* never closed; select 2`))).toHaveLength(1);
	});
});

describe('statementHead', () => {
	it.each([
		[`ATTACH 'ducklake:lake.ducklake' AS lake`, { kind: 'attach', target: 'ducklake:lake.ducklake', alias: 'lake', lake: true }],
		[`ATTACH DATABASE IF NOT EXISTS 'ducklake:meta/cat.ducklake' (DATA_PATH 's3://x/')`, { kind: 'attach', target: 'ducklake:meta/cat.ducklake', alias: 'cat', lake: true }],
		[`ATTACH 'warehouse.duckdb' AS wh (READ_ONLY)`, { kind: 'attach', target: 'warehouse.duckdb', alias: 'wh', lake: false }],
		['USE lake.main', { kind: 'use', parts: ['lake', 'main'] }],
		['CREATE OR REPLACE TEMP TABLE t AS SELECT 1', { kind: 'create_as', name: ['t'], temp: true, view: false, columns: null, query: 34 }],
		['CREATE TABLE IF NOT EXISTS lake."Report" AS (SELECT 1)', { kind: 'create_as', name: ['lake', 'Report'], temp: false, view: false, columns: null, query: 44 }],
		['CREATE VIEW v (a, b) AS SELECT 1, 2', { kind: 'create_as', name: ['v'], temp: false, view: true, columns: ['a', 'b'], query: 24 }],
		[
			'CREATE TABLE lake.t (id INTEGER PRIMARY KEY, amount DECIMAL(10, 2), PRIMARY KEY (id))',
			{ kind: 'create', name: ['lake', 't'], temp: false, columns: ['id', 'amount'] }
		],
		['INSERT INTO lake.t (a, b) SELECT 1, 2', { kind: 'insert', name: ['lake', 't'], columns: ['a', 'b'], byName: false, query: 26, queryEnd: 37 }],
		['INSERT OR REPLACE INTO t BY NAME SELECT 1 AS a', { kind: 'insert', name: ['t'], columns: null, byName: true, query: 33, queryEnd: 46 }],
		[
			'INSERT INTO t SELECT a FROM s ON CONFLICT (a) DO NOTHING',
			{ kind: 'insert', name: ['t'], columns: null, byName: false, query: 14, queryEnd: 30 }
		],
		['WITH x AS (SELECT 1) SELECT * FROM x', { kind: 'query', query: 0, queryEnd: 36 }],
		['(SELECT 1) UNION (SELECT 2)', { kind: 'query', query: 0, queryEnd: 27 }],
		[`COPY lake.t FROM 'x.csv'`, { kind: 'copy_from', name: ['lake', 't'] }],
		[`COPY (SELECT a FROM s.t) TO 'x.parquet'`, { kind: 'copy_to', name: null, query: 6, queryEnd: 23 }],
		['DELETE FROM lake.t WHERE a = 1', { kind: 'modify', verb: 'DELETE', name: ['lake', 't'] }],
		['UPDATE lake.t SET a = 1', { kind: 'modify', verb: 'UPDATE', name: ['lake', 't'] }],
		['DROP TABLE IF EXISTS lake.t', { kind: 'ignored', verb: 'DROP' }],
		['INSTALL ducklake', { kind: 'ignored', verb: 'INSTALL' }],
		['CREATE SECRET s (TYPE s3)', { kind: 'ignored', verb: 'CREATE SECRET' }],
		['PIVOT t ON a', { kind: 'unknown', verb: 'PIVOT' }]
	])('%s', (text, expected) => {
		expect(statementHead(text)).toEqual(expected);
	});
});
