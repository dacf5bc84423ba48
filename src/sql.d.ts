// schema.sql is bundled as text (esbuild loader, vitest plugin).
declare module '*.sql' {
  const text: string;
  export default text;
}
