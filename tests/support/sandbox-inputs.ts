// Runs are sandboxed in the tests as by default, so the stand-in dbt sees only its job directory,
// its own folder and what the worker binds read-only (TRIBUTARY_SANDBOX_READ_ONLY): the fixtures
// it replays, and this folder, where a test writes the files its scenario names.
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FIXTURES } from './fixtures';

export const SANDBOX_INPUTS = path.join(tmpdir(), 'tributary-test-inputs');
mkdirSync(SANDBOX_INPUTS, { recursive: true });

/** What the real engine wrote, recorded by scripts/record-dbt-fixtures.ts, for the stand-in to replay. */
export const REAL_DBT_RECORDINGS = path.resolve('tests/fixtures/real-dbt');

/** The paths a test worker shows its sandbox read-only. */
export const SANDBOX_READ_ONLY = [FIXTURES, SANDBOX_INPUTS, REAL_DBT_RECORDINGS];
