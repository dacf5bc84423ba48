// Types of build/tracker.mjs, for vitest.config.ts.
export declare const trackerSource: string;
export declare const trackerModuleId: string;
export declare function buildTracker(): string;
export declare function trackerModuleText(): string;
export declare const trackerEsbuildPlugin: { name: string; setup(build: unknown): void };
