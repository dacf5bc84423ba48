// Types of build/answer-types.mjs, for test/ui/answer-types.test.ts.
export declare const answerTypesPath: string;
/** The text of web/admin/api-answers.d.ts for a catalog (GET /v1/schemas: catalog key → JSON Schema). */
export declare function answerTypesOf(catalog: Record<string, unknown>): string;
