// ua-parser-js 1.x (MIT) ships no types; this is the part Sightline uses.
declare module 'ua-parser-js' {
  interface UAResult {
    browser: { name?: string; version?: string };
    os: { name?: string; version?: string };
    device: { type?: string; vendor?: string; model?: string };
  }
  class UAParser {
    constructor(userAgent?: string);
    getResult(): UAResult;
  }
  export default UAParser;
}
