// Where to go after signing in: `?next=` names a page of this site, never another site.

// Browsers strip tabs and newlines from URLs before resolving them, so `/\t/evil.example` is
// `//evil.example` to them; a newline in a Location header is a 500. No control character passes.
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * `next` as a same-site path (path, query and fragment, as the URL parser normalised them), or
 * null when it is anything else: another origin, a scheme, a relative path, a control character,
 * or a path whose normalised form starts with `//` or `/\` (a browser reads those as another host).
 */
export function sameSitePath(next: string | null, origin: string): string | null {
	if (!next || CONTROL.test(next) || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return null;
	let url: URL;
	try {
		url = new URL(next, origin);
	} catch {
		return null;
	}
	if (url.origin !== new URL(origin).origin) return null;
	const path = url.pathname + url.search + url.hash;
	if (!path.startsWith('/') || path.startsWith('//') || path.startsWith('/\\')) return null;
	return path;
}
