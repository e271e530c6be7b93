import { describe, expect, it } from 'vitest';
import { NON_PAGE_CSP, withSecurityHeaders } from './security-headers';

const EXPECTED = {
	'x-content-type-options': 'nosniff',
	'referrer-policy': 'same-origin',
	'x-frame-options': 'DENY'
};

const headersOf = (r: Response) => Object.fromEntries([...r.headers].filter(([k]) => k in EXPECTED || k === 'content-security-policy'));

describe('withSecurityHeaders', () => {
	it.each([
		['a JSON answer', () => Response.json({ ok: true }), 200, '{"ok":true}'],
		['an error answer', () => Response.json({ error: 'no' }, { status: 403 }), 403, '{"error":"no"}'],
		['a redirect with immutable headers', () => Response.redirect('http://localhost/login', 303), 303, ''],
		['a plain text answer', () => new Response('text', { headers: { 'content-type': 'text/plain' } }), 200, 'text']
	])('adds every header and a deny-all policy to %s, keeping its status and body', async (_name, make, status, body) => {
		const r = withSecurityHeaders(make());
		expect(headersOf(r)).toEqual({ ...EXPECTED, 'content-security-policy': NON_PAGE_CSP });
		expect(r.status).toBe(status);
		expect(await r.text()).toBe(body);
	});

	it("keeps a page's own Content-Security-Policy (kit's, with the page's nonce)", () => {
		const page = new Response('<html></html>', {
			headers: { 'content-type': 'text/html', 'content-security-policy': "script-src 'self' 'nonce-abc'; frame-ancestors 'none'" }
		});
		const r = withSecurityHeaders(page);
		expect(r.headers.get('content-security-policy')).toBe("script-src 'self' 'nonce-abc'; frame-ancestors 'none'");
		expect(r.headers.get('x-frame-options')).toBe('DENY');
	});

	it("the deny-all policy forbids framing and every fetch", () => {
		expect(NON_PAGE_CSP).toContain("default-src 'none'");
		expect(NON_PAGE_CSP).toContain("frame-ancestors 'none'");
	});
});
