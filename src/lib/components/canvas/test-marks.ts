// The marks of a card's test badge, shared by the card and the legend that explains it.
import type { TestState } from '$lib/types/canvas';

export const TEST_MARKS: Record<TestState, string> = { pass: '✓', fail: '✗', warn: '!', skip: '·' };

export const TEST_WORDS: Record<TestState, string> = {
	pass: 'all passed',
	fail: 'a test failed',
	warn: 'a test warned',
	skip: 'a test was skipped'
};
