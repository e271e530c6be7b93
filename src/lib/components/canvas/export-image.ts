// The canvas view as an image file: what is on screen (xyflow's viewport element at the current
// pan and zoom, the container's size), through html-to-image as xyflow's own "download image"
// example does. Runs in the browser only; fonts are the system's, so none are embedded. The PNG
// is drawn here from the SVG: html-to-image's own raster path waits on an image decode that
// never settles in headless Chromium.
import { toSvg } from 'html-to-image';

export type ImageFormat = 'svg' | 'png';

/**
 * Runs `draw` with each edge path's stroke written on it as presentation attributes, then takes
 * them off: html-to-image copies the computed style of HTML elements but not of an SVG's
 * children, so the edges (styled by class) would be drawn without a stroke. Attributes rank
 * below every style rule, so the live canvas looks the same meanwhile.
 */
async function withEdgeStrokes<T>(root: HTMLElement, draw: () => Promise<T>): Promise<T> {
	const set: SVGElement[] = [];
	for (const path of root.querySelectorAll<SVGElement>('.svelte-flow__edge-path')) {
		if (path.hasAttribute('stroke')) continue;
		const cs = getComputedStyle(path);
		const edge = path.closest<SVGElement>('.svelte-flow__edge');
		path.setAttribute('stroke', cs.stroke);
		path.setAttribute('stroke-width', cs.strokeWidth);
		path.setAttribute('stroke-opacity', edge ? getComputedStyle(edge).opacity : '1');
		set.push(path);
	}
	try {
		return await draw();
	} finally {
		for (const path of set) for (const a of ['stroke', 'stroke-width', 'stroke-opacity']) path.removeAttribute(a);
	}
}

/** The flow inside `container` as it is drawn now, as an image file's bytes. */
export async function canvasImage(container: HTMLElement, format: ImageFormat, background: string): Promise<Blob> {
	const viewport = container.querySelector<HTMLElement>('.svelte-flow__viewport');
	if (!viewport) throw new Error('the canvas is not drawn yet');
	const { width, height } = container.getBoundingClientRect();
	const options = {
		backgroundColor: background,
		width,
		height,
		skipFonts: true,
		// The element keeps its own transform (the current pan and zoom); the clone is sized to the container.
		style: { width: `${width}px`, height: `${height}px`, transform: viewport.style.transform }
	};
	// Edge ids join their ends with a NUL, which XML does not allow: a space in the image.
	const url = (await withEdgeStrokes(viewport, () => toSvg(viewport, options))).replace(/%00/g, '%20');
	// A data: URL of the SVG text; a Blob of the text itself downloads at any size.
	if (format === 'svg') return new Blob([decodeURIComponent(url.slice(url.indexOf(',') + 1))], { type: 'image/svg+xml' });
	const img = await new Promise<HTMLImageElement>((resolve, reject) => {
		const i = new Image();
		i.onload = () => resolve(i);
		i.onerror = () => reject(new Error('the browser could not draw the view'));
		i.src = url;
	});
	const ratio = 2;
	const canvas = document.createElement('canvas');
	canvas.width = Math.round(width * ratio);
	canvas.height = Math.round(height * ratio);
	const ctx = canvas.getContext('2d');
	if (!ctx) throw new Error('no 2D canvas in this browser');
	ctx.fillStyle = background;
	ctx.fillRect(0, 0, canvas.width, canvas.height);
	ctx.drawImage(img, 0, 0, canvas.width, canvas.height);
	return new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('the browser drew no image'))), 'image/png'));
}

/** Hands a file to the browser as a download named `name`. */
export function download(file: Blob, name: string): void {
	const url = URL.createObjectURL(file);
	const a = document.createElement('a');
	a.href = url;
	a.download = name;
	a.click();
	// The click has started the download from the URL; it can go once the task is done.
	setTimeout(() => URL.revokeObjectURL(url), 0);
}
