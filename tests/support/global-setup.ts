import { ensureTemplate } from './pglite-template';

export default async function setup(): Promise<void> {
	await ensureTemplate();
}
