import type { ParamMatcher } from '@sveltejs/kit';

export const match = ((param: string): param is 'deploy' | 'preview' =>
	param === 'deploy' || param === 'preview') satisfies ParamMatcher;
