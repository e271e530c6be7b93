// A style generated at run time (the canvas highlight), applied as a constructed style sheet
// rather than a <style> element: the pages' Content-Security-Policy admits only the app's own
// style sheets, and a sheet built through the CSSOM is not an inline style.

/** Keeps a document-wide style sheet holding `css()` while the calling component is mounted. */
export function adoptedStyle(css: () => string): void {
	// Made in the browser only (effects never run on the server, which has no CSSStyleSheet).
	let sheet: CSSStyleSheet | null = null;
	$effect(() => {
		const own = new CSSStyleSheet();
		sheet = own;
		document.adoptedStyleSheets = [...document.adoptedStyleSheets, own];
		return () => {
			document.adoptedStyleSheets = document.adoptedStyleSheets.filter((s) => s !== own);
		};
	});
	$effect(() => {
		const text = css();
		sheet?.replaceSync(text);
	});
}
