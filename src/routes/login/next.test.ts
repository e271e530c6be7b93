// The login page's return target: a signed-in visit to /login?next=…
// redirects there, so `next` must never leave the site or break the redirect.
import { isRedirect } from '@sveltejs/kit';
import { describe, expect, it } from 'vitest';
import { load } from './+page.server';

async function redirectOf(next: string): Promise<{ status: number; location: string } | string> {
	const url = new URL('http://tributary.test/login');
	url.searchParams.set('next', next);
	try {
		await load({ locals: { auth: { via: 'session' } }, url } as never);
		return 'no redirect';
	} catch (e) {
		if (isRedirect(e)) return { status: e.status, location: e.location };
		return `threw ${(e as Error).message}`;
	}
}

describe('the login page redirects a signed-in visitor to `next` only when it is a path of this site', () => {
	it.each([
		['/w/acme/settings', '/w/acme/settings'],
		['/w/acme/run/5?view=graph#top', '/w/acme/run/5?view=graph#top'],
		['/w/acme/pipeline/finance?select=%2Borders', '/w/acme/pipeline/finance?select=%2Borders']
	])('keeps %s', async (next, location) => {
		expect(await redirectOf(next)).toEqual({ status: 303, location });
	});

	it.each([
		['a tab between the slashes', '/\t/evil.example/phish'],
		['a newline between the slashes', '/\n/evil.example'],
		['a carriage return in the path', '/w/acme\r\nSet-Cookie: x=1'],
		['a NUL', '/w/\u0000acme'],
		['DEL', '/w/\u007facme'],
		['a protocol-relative URL', '//evil.example'],
		['a backslash after the slash', '/\\evil.example'],
		['a backslash and a slash', '\\/evil.example'],
		['a dot segment that leaves two slashes', '/.//evil.example'],
		['an encoded dot segment that leaves two slashes', '/%2e//evil.example'],
		['an absolute URL', 'https://evil.example/'],
		['a javascript: URL', 'javascript:alert(1)'],
		['a relative path', 'w/acme'],
		['a leading space', ' /w/acme'],
		['a query only', '?x=1'],
		['an empty value', '']
	])('ignores %s', async (_name, next) => {
		expect(await redirectOf(next)).toEqual({ status: 303, location: '/' });
	});
});
