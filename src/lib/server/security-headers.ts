// Security headers of every answer that passes through the app. Pages get
// their Content-Security-Policy from `kit.csp` in svelte.config.js, since only kit knows the
// nonce of each page's inline hydration script; every other answer (API, page data, redirects,
// errors made before rendering) gets a policy that allows nothing.
import type { Handle } from '@sveltejs/kit';

export const NON_PAGE_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

const HEADERS: Record<string, string> = {
	'x-content-type-options': 'nosniff',
	// Share links carry their token in the URL: it must not reach other sites through Referer.
	'referrer-policy': 'same-origin',
	// For browsers that ignore CSP's frame-ancestors: the settings forms must not be framed.
	'x-frame-options': 'DENY'
};

function apply(headers: Headers): void {
	for (const [k, v] of Object.entries(HEADERS)) headers.set(k, v);
	if (!headers.has('content-security-policy')) headers.set('content-security-policy', NON_PAGE_CSP);
}

/** The response with the security headers set (a copy when its headers are immutable, as a redirect's are). */
export function withSecurityHeaders(response: Response): Response {
	try {
		apply(response.headers);
		return response;
	} catch {
		const copy = new Response(response.body, response);
		apply(copy.headers);
		return copy;
	}
}

/**
 * `handle` with the security headers on whatever it answers, including answers it makes itself
 * without resolving (kit's `sequence` would do the same, but needs kit's request store).
 */
export const withSecurityHeadersOn =
	(handle: Handle): Handle =>
	async (input) =>
		withSecurityHeaders(await handle(input));
