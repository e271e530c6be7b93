// The canvas view as an image file: what is on screen (xyflow's viewport element at the current
// pan and zoom, the container's size), through html-to-image as xyflow's own "download image"
// example does. Runs in the browser only; fonts are the system's, so none are embedded.
import { toPng, toSvg } from 'html-to-image';

export type ImageFormat = 'svg' | 'png';

/** A data: URL of the flow inside `container` as it is drawn now. */
export async function canvasImage(container: HTMLElement, format: ImageFormat, background: string): Promise<string> {
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
	return format === 'svg' ? toSvg(viewport, options) : toPng(viewport, { ...options, pixelRatio: 2 });
}

/** Hands a data: URL to the browser as a download named `name`. */
export function download(dataUrl: string, name: string): void {
	const a = document.createElement('a');
	a.href = dataUrl;
	a.download = name;
	a.click();
}
