// A refusal of a settings form, shown beside the input it concerns: the API's messages start
// with the field they are about ("readers names no member …", "new_password must …").
import { fail } from '@sveltejs/kit';
import { ApiError } from '../../api-error';

/** The longest of `fields` the message starts with (followed by a space, colon or dot), else null. */
export function fieldOf(message: string, fields: readonly string[]): string | null {
	let best: string | null = null;
	for (const f of fields) {
		if (message.startsWith(f) && /^[\s:.]/.test(message.slice(f.length)) && f.length > (best?.length ?? 0)) best = f;
	}
	return best;
}

/**
 * Runs one form's call: its answer, or the refusal as the form's failure (section, which entry
 * of the section when several forms share it, the field, the message). Other errors propagate.
 */
export async function formCall<T extends Record<string, unknown>>(
	where: { section: string; target?: string; fields?: readonly string[]; keep?: Record<string, unknown> },
	call: () => Promise<T>
) {
	try {
		return { section: where.section, target: where.target ?? null, ...(await call()) };
	} catch (e) {
		if (!(e instanceof ApiError)) throw e;
		return fail(e.status, {
			section: where.section,
			target: where.target ?? null,
			field: fieldOf(e.message, where.fields ?? []),
			adminError: e.message,
			...(where.keep ?? {})
		});
	}
}
