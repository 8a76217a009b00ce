// A captured frame made a given size, kept in shape with black around: what the page's encoder is
// given (a rung of the ladder, webcodecs-pusher.ts) and what Low latency (WebRTC) sends (the Output's
// size, output-track.ts).
//
// A camera's frame (YUV) is scaled in YUV (i420-scale.ts): a frame made from a canvas made Chromium
// map ~450 MB of shared memory into the page for good. Frames that are RGB already (a screen, a
// scene) are drawn on a canvas, and pay that.
import { i420Bytes, isYuv, scaleToI420 } from './i420-scale'

export class FrameFitter {
  private canvas: OffscreenCanvas | undefined
  /** A camera frame's copy and its scaled I420 picture, reused from frame to frame. */
  private yuv = { in: new Uint8Array(0), out: new Uint8Array(0) }

  /** A new frame of `frame`'s picture at w x h (the caller closes both). */
  async fit(frame: VideoFrame, w: number, h: number): Promise<VideoFrame> {
    if (isYuv(frame.format)) {
      const size = frame.allocationSize()
      if (this.yuv.in.length < size) this.yuv.in = new Uint8Array(size)
      const layout = await frame.copyTo(this.yuv.in)
      const bytes = i420Bytes(w, h)
      if (this.yuv.out.length !== bytes) this.yuv.out = new Uint8Array(bytes)
      const rect = frame.visibleRect
      scaleToI420(
        {
          format: frame.format,
          data: this.yuv.in,
          layout,
          width: rect?.width ?? frame.codedWidth,
          height: rect?.height ?? frame.codedHeight
        },
        w,
        h,
        this.yuv.out
      )
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
    if (this.canvas?.width !== w || this.canvas.height !== h)
      this.canvas = new OffscreenCanvas(w, h)
    const c = this.canvas
    const g = c.getContext('2d', { alpha: false })
    if (!g) throw new Error('no 2D canvas for scaling')
    const sw = frame.displayWidth
    const sh = frame.displayHeight
    const s = Math.min(w / sw, h / sh)
    const dw = Math.round(sw * s)
    const dh = Math.round(sh * s)
    g.fillStyle = '#000'
    if (dw !== w || dh !== h) g.fillRect(0, 0, w, h)
    g.drawImage(frame, (w - dw) / 2, (h - dh) / 2, dw, dh)
    return new VideoFrame(c, { timestamp: frame.timestamp, duration: frame.duration ?? undefined })
  }
}
