// Issue 14, item 5 / finding 14: security headers on every answer of the real `handle` hook,
// including the answers the hook makes itself. Pages rendered by kit are covered by the browser
// test (tests/e2e/security-headers.test.ts), since kit writes their policy with a fresh nonce.
import { describe, expect, it } from 'vitest';
import { ApiClient } from '../support/api';

const HEADERS = {
	'x-content-type-options': 'nosniff',
	'referrer-policy': 'same-origin',
	'x-frame-options': 'DENY'
};

describe('security headers through the handle hook', () => {
	it.each<[string, string, string, Record<string, string>, number]>([
		['an API answer', 'GET', '/api/openapi.json', {}, 200],
		['an API error answer', 'GET', '/api/whoami', {}, 401],
		['a refusal the hook makes itself', 'POST', '/api/auth/login', { origin: 'https://evil.example', 'content-type': 'text/plain' }, 403],
		['an unknown route', 'GET', '/api/no-such-endpoint', {}, 404]
	])('on %s', async (_name, method, path, headers, status) => {
		const r = await new ApiClient().call(method, path, { headers });
		expect(r.status).toBe(status);
		for (const [k, v] of Object.entries(HEADERS)) expect(r.headers.get(k), k).toBe(v);
		const csp = r.headers.get('content-security-policy') ?? '';
		expect(csp).toContain("default-src 'none'");
		expect(csp).toContain("frame-ancestors 'none'");
	});
});
