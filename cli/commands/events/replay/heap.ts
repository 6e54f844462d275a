import v8 from 'node:v8';

/**
 * Keeps V8's young generation at the size start-up left it (16 MB here). V8 doubles it, up to
 * 32 MB, once the bytes that survived its collections since the last doubling add up to its
 * size: in a long replay that happens however little each collection keeps (a batch's index and
 * its request, some 50 KB), so without this the peak depended on how long the file was. What a
 * replay keeps between lines is bounded (body.ts, loop.ts), and a young generation of this size
 * collects it cheaply. The flag is read when V8 grows the space, so setting it now takes effect.
 */
export function holdYoungGeneration(): void {
  v8.setFlagsFromString('--semi-space-growth-factor=1');
}
