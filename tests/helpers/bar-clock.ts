// The wall clock as a bar code painted into a picture and read back off it: the one definition the
// glass-to-glass and uplink benches (scripts/bench/glass.ts, uplink*.ts) and the uplink harness
// (tests/helpers/uplink.ts) share. These functions run in pages too, sent as source (CLOCK_IN_PAGE).

/** The 2D context's part the painter uses (the helpers compile without the DOM library). */
interface Painter {
  fillStyle: string
  fillRect(x: number, y: number, w: number, h: number): void
}

/**
 * The wall clock as a bar code: 32 black/white blocks of 40×40 px along the top of a 1280-wide picture,
 * the time in ms modulo 2^32, most significant bit first. Self-contained (no outside names): these run
 * in pages too, sent as source (CLOCK_IN_PAGE).
 */
export function paintClock(ctx: Painter, ms: number): void {
  const t = ms % 2 ** 32
  for (let bit = 0; bit < 32; bit++) {
    ctx.fillStyle = (t >>> (31 - bit)) & 1 ? '#ffffff' : '#000000'
    ctx.fillRect(bit * 40, 0, 40, 40)
  }
}

/** Reads the bar code back: lumaAt(x, y) of the picture, scale = its width / 1280. */
export function readClock(lumaAt: (x: number, y: number) => number, scale: number): number {
  let t = 0
  // The middle of each block, well inside it whatever the picture's size.
  for (let bit = 0; bit < 32; bit++)
    t =
      (t * 2 +
        (lumaAt(Math.round((bit * 40 + 20) * scale), Math.round(20 * scale)) > 128 ? 1 : 0)) >>>
      0
  return t
}

/** ms from a read clock to `nowMs`, or null for a misread (a frame mid-change gives nonsense). */
export function clockDelayMs(clock: number, nowMs: number): number | null {
  const delay = (nowMs - clock + 2 ** 32) % 2 ** 32
  return delay < 60_000 ? delay : null
}

export interface PageClock {
  paint: typeof paintClock
  read: typeof readClock
  delayMs: typeof clockDelayMs
}

/**
 * Gives a page globalThis.__clock (paint, read, delayMs); for page.evaluate or addInitScript. tsx
 * (esbuild, keepNames) wraps inner functions in __name(): the page gets a no-op one.
 */
export const CLOCK_IN_PAGE =
  `globalThis.__name = globalThis.__name || ((f) => f); ` +
  `globalThis.__clock = { paint: ${paintClock}, read: ${readClock}, delayMs: ${clockDelayMs} };`
