// The browser's half of an export: colours read from the design tokens, the SVG text from the
// canvas's model (state/canvas-export), and for a PNG that SVG drawn onto an offscreen canvas at
// twice the pixels. The DOM is never copied: the canvas renders only what is near the viewport.
import { rasterSize, type ColourSource, type ImageFormat } from '$lib/state/canvas-export.svelte';

/** Token and lens colours as `container` resolves them. */
export function domColours(container: HTMLElement): ColourSource {
	const cs = getComputedStyle(container);
	return {
		token: (name) => cs.getPropertyValue(name).trim(),
		lens: (cls) => {
			const probe = document.createElement('span');
			probe.className = cls;
			probe.hidden = true;
			container.appendChild(probe);
			const v = getComputedStyle(probe).getPropertyValue('--lens').trim();
			probe.remove();
			return v;
		}
	};
}

/** An SVG document's text rasterised at twice its size (less for a huge one), as PNG bytes. */
export async function svgToPng(svg: string, width: number, height: number): Promise<Blob> {
	const size = rasterSize(width, height);
	// A data: URL, not a blob: one: headless Chromium never fires load for an SVG image from a blob.
	const url = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
	{
		const img = await new Promise<HTMLImageElement>((resolve, reject) => {
			const i = new Image();
			i.onload = () => resolve(i);
			i.onerror = () => reject(new Error('the browser could not draw the image'));
			i.src = url;
		});
		const canvas = document.createElement('canvas');
		canvas.width = size.width;
		canvas.height = size.height;
		const ctx = canvas.getContext('2d');
		if (!ctx) throw new Error('no 2D canvas in this browser');
		ctx.drawImage(img, 0, 0, size.width, size.height);
		return await new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('the browser drew no image'))), 'image/png'));
	}
}

export function svgBlob(svg: string): Blob {
	return new Blob([svg], { type: 'image/svg+xml' });
}

export type { ImageFormat };

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
