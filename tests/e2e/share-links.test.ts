// A share link's life in Chromium against the built app: a member makes a 1-day public link in
// the run page's share dialog, a stranger (a fresh context, no session) opens it, the member
// revokes it in the dialog's list, and the stranger's next visit gets exactly what a forged
// link gets.
import { describe, expect, it } from 'vitest';
import { openCanvas, seededRuns, shot, useDemoBrowser, watchErrors } from './support';

/** The same link with one MAC digit changed: what a forged link answers. */
function forged(url: string): string {
	const u = new URL(url);
	const t = u.searchParams.get('view_token')!;
	u.searchParams.set('view_token', t.slice(0, -1) + (t.endsWith('0') ? '1' : '0'));
	return u.toString();
}

describe('share links with a lifetime (chromium, built app, demo workspace)', () => {
	const stage = useDemoBrowser();

	it('makes a 1-day link in the dialog, a stranger opens it, it is revoked in the list and then answers as an invalid link', async () => {
		const { app, api, browser, member } = stage;
		const runId = (await seededRuns(api)).failed;

		const page = await member.newPage();
		const errors = watchErrors(page);
		await openCanvas(page, `${app.url}/w/demo/run/${runId}`);
		await page.getByRole('button', { name: 'Share…' }).click();
		const dialog = page.getByRole('dialog', { name: 'Share this run' });
		await dialog.getByLabel('Anyone with the link').check();
		await dialog.getByLabel('Expires after').selectOption({ label: '1 day' });
		await dialog.getByRole('button', { name: 'Create link' }).click();
		const made = dialog.getByTestId('share-public');
		await expect.poll(() => made.inputValue()).toContain(`/w/demo/run/${runId}?view_token=`);
		const url = await made.inputValue();
		const linkId = new URL(url).searchParams.get('view_token')!.split('.')[1];
		const row = dialog.locator(`tr[data-link-id="${linkId}"]`);
		await expect.poll(() => row.getAttribute('data-state')).toBe('active');
		const cells = await row.locator('td').allTextContents();
		expect(cells[0]).toBe('Anyone');
		expect(cells[1]).toBe('admin');
		expect(cells[4]).toBe('not yet');
		// Expires a day after it was made, as the API says.
		const listed = (await api.ok('GET', `/api/w/demo/jobs/share_links/${runId}`)) as { id: string; created_at: string; expires_at: string }[];
		const link = listed.find((l) => l.id === linkId)!;
		expect(Date.parse(link.expires_at) - Date.parse(link.created_at)).toBe(86_400_000);
		expect(cells[3]).not.toBe('never');
		await shot(page, 'share-dialog');

		// A stranger opens it: the run, read-only.
		const stranger = await browser.newContext({ viewport: { width: 1440, height: 900 } });
		const seen = await stranger.newPage();
		await openCanvas(seen, url);
		await expect.poll(() => seen.getByTestId('run-status').textContent()).toBe('failure');
		expect(await seen.getByRole('button', { name: /Share/ }).count()).toBe(0);
		await seen.close();
		// Its use is in the list once the dialog reads it again.
		await dialog.getByRole('button', { name: 'Close' }).click();
		await page.getByRole('button', { name: 'Share…' }).click();
		await expect.poll(async () => (await row.locator('td').allTextContents())[4]).not.toBe('not yet');

		// Revoked in the list.
		await row.getByRole('button', { name: 'Revoke' }).click();
		await expect.poll(() => row.getAttribute('data-state')).toBe('revoked');
		expect(await row.getByRole('button', { name: 'Revoke' }).count()).toBe(0);
		await shot(page, 'share-dialog-revoked');

		// The stranger now gets what a forged link gets: sent to sign in, the API's 401 with one message.
		const again = await stranger.newPage();
		await again.goto(url);
		await again.waitForURL(/\/login\?next=/);
		const landedRevoked = new URL(again.url());
		await again.goto(forged(url));
		await again.waitForURL(/\/login\?next=/);
		const landedForged = new URL(again.url());
		expect(landedRevoked.pathname).toBe(landedForged.pathname);
		expect(await again.getByTestId('run-status').count()).toBe(0);
		const token = new URL(url).searchParams.get('view_token')!;
		const apiRevoked = await stranger.request.get(`${app.url}/api/w/demo/jobs/get/${runId}?view_token=${token}`);
		const apiForged = await stranger.request.get(`${app.url}/api/w/demo/jobs/get/${runId}?view_token=${new URL(forged(url)).searchParams.get('view_token')}`);
		expect(apiRevoked.status()).toBe(401);
		expect([apiRevoked.status(), await apiRevoked.text()]).toEqual([apiForged.status(), await apiForged.text()]);
		await shot(again, 'share-link-revoked');
		await stranger.close();
		expect(errors).toEqual([]);
		await page.close();
	});
});
