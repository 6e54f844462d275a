import v8 from 'node:v8';
import vm from 'node:vm';

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

/** How often the old generation is collected during a replay: a few ms of a heap of some 10 MB. */
const OLD_GENERATION_EVERY_MS = 200;

/**
 * Collects the old generation every 200 ms until the returned function is called. What a
 * replay keeps is bounded (its JS heap holds some 10 MB at any line), but V8 lets garbage that
 * outlived two young collections pile up in the old generation, raising its limit with the rate
 * of allocation: peak RSS then grew with the file (114 MB at 100,000 lines of a real export, 130
 * MB at 300,000, in a dry run). A timely full collection keeps the peak where the live data is.
 * `gc` is exposed at run time, then read from a fresh context (the only place it appears).
 */
export function collectOldGeneration(): () => void {
  v8.setFlagsFromString('--expose-gc');
  const gc: unknown = vm.runInNewContext('gc');
  if (typeof gc !== 'function') return () => undefined;
  const collect = gc as () => void;
  const timer = setInterval(() => collect(), OLD_GENERATION_EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
