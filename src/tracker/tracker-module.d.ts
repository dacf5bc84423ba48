// The browser tracker's minified text (build/tracker.mjs): embedded by esbuild in the bundle, by a plugin in tests.
declare module 'virtual:sightline-tracker' {
  const text: string;
  export default text;
}
