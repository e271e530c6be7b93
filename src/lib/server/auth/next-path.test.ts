import { describe, expect, it } from 'vitest';
import { sameSitePath } from './next-path';

const ORIGIN = 'https://tributary.example';

describe('sameSitePath', () => {
	it.each([
		['/w/acme', '/w/acme'],
		['/w/acme/run/5?view_token=a.b#log', '/w/acme/run/5?view_token=a.b#log'],
		['/w/acme/./settings', '/w/acme/settings'],
		['/w/acme/pipeline/x?select=%2Borders%3C', '/w/acme/pipeline/x?select=%2Borders%3C'],
		// Percent-encoded control characters stay encoded: a browser keeps them inside the path.
		['/%09/evil.example', '/%09/evil.example'],
		['/@evil.example', '/@evil.example']
	])('keeps %j as %j', (next, path) => {
		expect(sameSitePath(next, ORIGIN)).toBe(path);
	});

	it.each([
		null,
		'',
		'/\t/evil.example/phish',
		'/\n/evil.example',
		'/\r/evil.example',
		'/w/acme\r\nSet-Cookie: x=1',
		'/w/\u0000acme',
		'/w/\u001facme',
		'/w/\u007facme',
		'//evil.example',
		'///evil.example',
		'/\\evil.example',
		'\\/evil.example',
		'\\\\evil.example',
		'/.//evil.example',
		'/%2e//evil.example',
		'/..//evil.example',
		'https://evil.example/',
		'https://tributary.example/w/acme',
		'http:/evil.example',
		'javascript:alert(1)',
		'data:text/html,hi',
		'w/acme',
		' /w/acme',
		'?next=/w',
		'#top'
	])('refuses %j', (next) => {
		expect(sameSitePath(next, ORIGIN)).toBeNull();
	});
});
