// Real source maps for the tests: a small TypeScript file minified by esbuild with an external map, run in a vm
// context under a script URL so V8 writes the stack a browser would. Not a test file itself.
import { runInNewContext } from 'node:vm';
import { transform } from 'esbuild';

/** The TypeScript source; `throw new Error` is on line 9. */
export const checkoutSource = `interface Cart {
  items: { price: number; quantity: number }[];
}

export function totalOf(cart: Cart): number {
  let total = 0;
  for (const item of cart.items) total += item.price * item.quantity;
  if (total > 100) {
    throw new Error('cart too large: ' + total);
  }
  return total;
}

export function checkout(cart: Cart): string {
  const total = totalOf(cart);
  return 'paid ' + total;
}

(globalThis as any).checkout = checkout;
`;
export const throwLine = 9;
export const callLine = 15;

export interface BuiltScript {
  code: string;
  /** The map's JSON text. */
  map: string;
}

/** Minifies the source into one line with an external map naming app.ts. */
export async function buildCheckout(): Promise<BuiltScript> {
  const result = await transform(checkoutSource, { loader: 'ts', minify: true, sourcemap: 'external', sourcefile: 'app.ts', format: 'iife' });
  return { code: result.code, map: result.map };
}

/** The stack V8 writes when the minified script, served at `url`, throws. */
export function stackOf(script: BuiltScript, url: string): string {
  const sandbox: { checkout?: (cart: unknown) => string } = {};
  runInNewContext(script.code, sandbox, { filename: url });
  try {
    sandbox.checkout!({ items: [{ price: 60, quantity: 2 }] });
  } catch (error) {
    return (error as Error).stack!;
  }
  throw new Error('the script did not throw');
}

/** The body of an upload. */
export function uploadBody(release: string, file: string, mapText: string | Buffer): { release: string; file: string; map: string } {
  return { release, file, map: Buffer.from(mapText).toString('base64') };
}

/**
 * The JSON text of a valid version 3 map of exactly `bytes` bytes (its sourcesContent padded), built in one buffer.
 * @example mapOfSize(25 * 1024 * 1024).length === 25 * 1024 * 1024
 */
export function mapOfSize(bytes: number): Buffer {
  const head = '{"version":3,"sources":["big.ts"],"names":[],"mappings":"AAAA","sourcesContent":["';
  const tail = '"]}';
  const buffer = Buffer.alloc(bytes, 'x');
  buffer.write(head, 0, 'latin1');
  buffer.write(tail, bytes - tail.length, 'latin1');
  return buffer;
}
