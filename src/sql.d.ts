// schema.sql is bundled as text (esbuild loader, vitest plugin).
declare module '*.sql' {
  const text: string;
  export default text;
}

// The admin UI's built files (build/build-ui.mjs writes dist/ui-assets.uibundle: JSON text), bundled the same way.
declare module '*.uibundle' {
  const text: string;
  export default text;
}
