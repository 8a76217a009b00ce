// A browser source's frame into a picture (#34 §4): main hands premultiplied BGRA (Chromium's paint);
// a canvas draws straight-alpha RGBA (ImageData), made once per frame into an ImageBitmap so that each
// of the compositor's draws is a blit. Used in browser-worker.ts, and on the page's thread where that
// worker cannot start (browser-frames.ts): one conversion for both.
//
// Read and written as 32-bit words: a pixel is one read and one write, and the opaque and transparent
// ones (most of an overlay) take no division. Chromium 156, one 800x600 frame, median of 30, two runs
// on a busy 2-core machine, against the byte-by-byte loop this replaced: opaque 0.9 ms (1.9-2.0),
// transparent 0.9-1.0 (1.8-2.0), all half transparent 3.3-4.2 (4.1-6.4), a bar over a clear page
// 1.2-1.8 (2.0-3.2). Making the ImageBitmap from the ImageData costs more than this.
// The words are little-endian, as on every machine the app runs on (x64, arm64).

/**
 * Premultiplied (or straight) BGRA into straight RGBA, as ImageData holds it. An opaque pixel is
 * only reordered; a transparent one is all zeros; the rest are divided by their alpha (rounded,
 * at most 255). Both arrays hold whole pixels; `bgra` may start anywhere.
 */
export function toRgba(bgra: Uint8Array, rgba: Uint8ClampedArray, premultiplied: boolean): void {
  // A word view needs a start on a multiple of 4: an odd one is copied first.
  const from = bgra.byteOffset % 4 === 0 ? bgra : bgra.slice()
  const src = new Uint32Array(from.buffer, from.byteOffset, rgba.length >> 2)
  const dst = new Uint32Array(rgba.buffer, rgba.byteOffset, rgba.length >> 2)
  for (let p = 0; p < dst.length; p++) {
    const w = src[p]!
    const a = w >>> 24
    if (a === 255 || !premultiplied) {
      // Bytes B G R A (word A R G B) into R G B A (word A B G R): swap the first and third bytes.
      dst[p] = (w & 0xff00ff00) | ((w >>> 16) & 0xff) | ((w & 0xff) << 16)
    } else if (a === 0) {
      dst[p] = 0
    } else {
      const half = a >>> 1
      const r = Math.min(255, ((((w >>> 16) & 0xff) * 255 + half) / a) | 0)
      const g = Math.min(255, ((((w >>> 8) & 0xff) * 255 + half) / a) | 0)
      const b = Math.min(255, (((w & 0xff) * 255 + half) / a) | 0)
      dst[p] = ((a << 24) | (b << 16) | (g << 8) | r) >>> 0
    }
  }
}

/** A frame's pixels (width x height premultiplied or straight BGRA) as a bitmap to draw. */
export async function bitmapOf(
  bgra: Uint8Array,
  width: number,
  height: number,
  premultiplied: boolean
): Promise<ImageBitmap> {
  const rgba = new Uint8ClampedArray(width * height * 4)
  toRgba(bgra, rgba, premultiplied)
  return createImageBitmap(new ImageData(rgba, width, height))
}
