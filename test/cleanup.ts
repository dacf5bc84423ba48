// Runs in every test file: temp directories made through makeTempDir() go when the file's tests are done.
import { afterAll } from 'vitest';
import { removeTempDirs } from './_setup.ts';

afterAll(() => removeTempDirs());
