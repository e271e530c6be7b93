import { describe, expect, it } from 'vitest';
import type { CanvasPayload } from '$lib/types/canvas';
import { RunCanvas } from './run-canvas.svelte';

const payload = (digest: string) => ({ wire: { digest } }) as unknown as CanvasPayload;

/** A server whose answers the test releases one by one, in any order, recording what was asked. */
function server() {
	const asked: { url: string; headers: Record<string, string> }[] = [];
	const pending: { resolve: (v: unknown) => void; reject: (e: Error) => void }[] = [];
	const fetchJson = (url: string, headers: Record<string, string>) => {
		asked.push({ url, headers });
		return new Promise<unknown>((resolve, reject) => pending.push({ resolve, reject }));
	};
	return { asked, pending, fetchJson };
}

function runCanvas(viewToken: string | null = null) {
	const s = server();
	const shown: { digest: string; first: boolean }[] = [];
	const canvas = new RunCanvas({ workspace: 'ws 1', viewToken, fetchJson: s.fetchJson, onCanvas: (p, first) => shown.push({ digest: p.wire.digest, first }) });
	return { s, shown, canvas };
}

const settled = () => new Promise((r) => setTimeout(r, 0));

describe('RunCanvas', () => {
	it('asks jobs/run_canvas with the direction and a share link’s token', async () => {
		const { s, canvas } = runCanvas('tok');
		void canvas.load('e1', 'job/1', 'TB');
		expect(s.asked).toEqual([{ url: '/api/w/ws%201/jobs/run_canvas/job%2F1?direction=TB', headers: { 'x-view-token': 'tok' } }]);
		const member = runCanvas(null);
		void member.canvas.load('e1', 'j', 'LR');
		expect(member.s.asked[0].headers).toEqual({});
	});

	it('shows each newest answer, the first one marked first', async () => {
		const { s, shown, canvas } = runCanvas();
		expect(canvas.isNew('e1')).toBe(true);
		const first = canvas.load('e1', 'j', 'LR');
		expect(canvas.isNew('e1')).toBe(false);
		s.pending[0].resolve(payload('d1'));
		await first;
		const second = canvas.load('e2', 'j', 'LR');
		s.pending[1].resolve(payload('d2'));
		await second;
		expect(shown).toEqual([
			{ digest: 'd1', first: true },
			{ digest: 'd2', first: false }
		]);
	});

	it('drops an answer to an older ask, whichever arrives first', async () => {
		const { s, shown, canvas } = runCanvas();
		const older = canvas.load('e1', 'a', 'LR');
		const newer = canvas.load('e2', 'b', 'LR');
		s.pending[1].resolve(payload('d2'));
		await newer;
		s.pending[0].resolve(payload('d1'));
		await older;
		expect(shown).toEqual([{ digest: 'd2', first: true }]);
	});

	it('a failed newest ask says why; an older ask’s failure says nothing; a later answer clears it', async () => {
		const { s, shown, canvas } = runCanvas();
		const older = canvas.load('e1', 'a', 'LR');
		const newer = canvas.load('e2', 'b', 'LR');
		s.pending[0].reject(new Error('status 500'));
		await older;
		expect(canvas.error).toBeNull();
		s.pending[1].reject(new Error('status 404'));
		await newer;
		expect(canvas.error).toBe('The graph could not be read (status 404); reload the page to try again.');
		const again = canvas.load('e3', 'b', 'LR');
		s.pending[2].resolve(payload('d3'));
		await again;
		await settled();
		expect(canvas.error).toBeNull();
		expect(shown).toEqual([{ digest: 'd3', first: true }]);
	});
});
