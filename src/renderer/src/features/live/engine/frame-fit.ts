// A captured frame made a given size, kept in shape with black around: what the page's encoder is
// given (a rung of the ladder, webcodecs-pusher.ts) and what Low latency (WebRTC) sends (the Output's
// size, output-track.ts).
//
// A camera's frame (YUV) is scaled in YUV (i420-scale.ts): a frame made from a canvas made Chromium
// map ~450 MB of shared memory into the page for good. Frames that are RGB already (a screen, a
// scene) are drawn on a canvas, and pay that.
//
// Onair's encoder (raw-pusher.ts) takes the picture as I420 bytes instead of a frame: i420() writes
// them, from the same scaler, with RGB pictures converted (rgbToI420).
import { i420Bytes, isRgb, isYuv, rgbToI420, scaleToI420 } from './i420-scale'

/** Planes of a packed I420 picture of w x h (even), as VideoFrame.copyTo takes a layout. */
const i420Layout = (w: number, h: number): PlaneLayout[] => [
  { offset: 0, stride: w },
  { offset: w * h, stride: w / 2 },
  { offset: w * h + (w / 2) * (h / 2), stride: w / 2 }
]

export class FrameFitter {
  private canvas: OffscreenCanvas | undefined
  /** A camera frame's copy and its scaled I420 picture, reused from frame to frame. */
  private yuv = { in: new Uint8Array(0), out: new Uint8Array(0) }

  /** An RGB frame's copy, reused from frame to frame. */
  private rgb = new Uint8Array(0)

  /** A new frame of `frame`'s picture at w x h (the caller closes both). */
  async fit(frame: VideoFrame, w: number, h: number): Promise<VideoFrame> {
    if (isYuv(frame.format)) {
      const bytes = i420Bytes(w, h)
      if (this.yuv.out.length !== bytes) this.yuv.out = new Uint8Array(bytes)
      await this.scaleYuv(frame, w, h, this.yuv.out)
      return new VideoFrame(this.yuv.out, {
        format: 'I420',
        codedWidth: w,
        codedHeight: h,
        timestamp: frame.timestamp,
        duration: frame.duration ?? undefined,
        // The camera's colours (BT.709 or 601, range) go on with its pixels.
        colorSpace: frame.colorSpace.toJSON()
      })
    }
    const c = this.draw(frame, w, h)
    return new VideoFrame(c, { timestamp: frame.timestamp, duration: frame.duration ?? undefined })
  }

  /**
   * `frame`'s picture at w x h (even) as I420 bytes in dst (i420Bytes(w, h) long), kept in shape with
   * black around: copied as it is when it is I420 of that size already, scaled in YUV when it is YUV,
   * converted from RGB when it is RGB of that size, else drawn on a canvas and converted.
   */
  async i420(frame: VideoFrame, w: number, h: number, dst: Uint8Array): Promise<void> {
    const rect = frame.visibleRect
    const sw = rect?.width ?? frame.codedWidth
    const sh = rect?.height ?? frame.codedHeight
    const same = sw === w && sh === h
    if (frame.format === 'I420' && same) {
      await frame.copyTo(dst, { layout: i420Layout(w, h) })
      return
    }
    if (isYuv(frame.format)) return this.scaleYuv(frame, w, h, dst)
    if (isRgb(frame.format) && same) {
      const size = w * h * 4
      if (this.rgb.length < size) this.rgb = new Uint8Array(size)
      await frame.copyTo(this.rgb, { layout: [{ offset: 0, stride: w * 4 }] })
      rgbToI420(this.rgb, w * 4, frame.format, w, h, dst)
      return
    }
    const image = this.draw(frame, w, h, true).getContext('2d')!.getImageData(0, 0, w, h)
    rgbToI420(new Uint8Array(image.data.buffer), w * 4, 'RGBA', w, h, dst)
  }

  /** A YUV frame scaled into an I420 picture of w x h (dst). */
  private async scaleYuv(frame: VideoFrame, w: number, h: number, dst: Uint8Array): Promise<void> {
    const format = frame.format
    if (!isYuv(format)) throw new Error(`a ${format} frame is not YUV`)
    const size = frame.allocationSize()
    if (this.yuv.in.length < size) this.yuv.in = new Uint8Array(size)
    const layout = await frame.copyTo(this.yuv.in)
    const rect = frame.visibleRect
    scaleToI420(
      {
        format,
        data: this.yuv.in,
        layout,
        width: rect?.width ?? frame.codedWidth,
        height: rect?.height ?? frame.codedHeight
      },
      w,
      h,
      dst
    )
  }

  /**
   * The frame drawn on the canvas at w x h, kept in shape, black around. A fitter whose pictures are
   * read back (i420) keeps its canvas in memory (willReadFrequently: the first call decides).
   */
  private draw(frame: VideoFrame, w: number, h: number, read = false): OffscreenCanvas {
    if (this.canvas?.width !== w || this.canvas.height !== h)
      this.canvas = new OffscreenCanvas(w, h)
    const c = this.canvas
    const g = c.getContext('2d', { alpha: false, willReadFrequently: read })
    if (!g) throw new Error('no 2D canvas for scaling')
    const sw = frame.displayWidth
    const sh = frame.displayHeight
    const s = Math.min(w / sw, h / sh)
    const dw = Math.round(sw * s)
    const dh = Math.round(sh * s)
    g.fillStyle = '#000'
    if (dw !== w || dh !== h) g.fillRect(0, 0, w, h)
    g.drawImage(frame, (w - dw) / 2, (h - dh) / 2, dw, dh)
    return c
  }
}
