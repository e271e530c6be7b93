// The canvas view as an image file: what is on screen (xyflow's viewport element at the current
// pan and zoom, the container's size), through html-to-image as xyflow's own "download image"
// example does. Runs in the browser only; fonts are the system's, so none are embedded. The PNG
// is drawn here from the SVG: html-to-image's own raster path waits on an image decode that
// never settles in headless Chromium.
import { toSvg } from 'html-to-image';

export type ImageFormat = 'svg' | 'png';

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
	const url = (await toSvg(viewport, options)).replace(/%00/g, '%20');
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
