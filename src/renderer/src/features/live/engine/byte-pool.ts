// A few buffers the raw pusher writes its messages into and takes back once the call that carried
// them is answered (the bridge copies or transfers the bytes by then), so a 720p30 or 1080p60 send
// does not make a fresh 1.4-3 MB buffer a frame for the garbage collector. A buffer that was
// transferred (detached, byteLength 0) is not taken back.

export class BytePool {
  private free: ArrayBuffer[] = []

  constructor(private readonly keep = 4) {}

  /** A buffer of exactly n bytes (a view of a kept one large enough, else a new one). */
  take(n: number): Uint8Array<ArrayBuffer> {
    // The smallest kept buffer that holds n, so a picture does not take a batch's buffer.
    let best = -1
    for (let i = 0; i < this.free.length; i++) {
      const b = this.free[i]!
      if (b.byteLength >= n && (best < 0 || b.byteLength < this.free[best]!.byteLength)) best = i
    }
    if (best < 0) return new Uint8Array(n)
    const [buf] = this.free.splice(best, 1)
    return new Uint8Array(buf!, 0, n)
  }

  /** Takes a buffer back (one from take, or any other whole one) once nothing reads it any more. */
  give(bytes: Uint8Array): void {
    const buf = bytes.buffer
    if (!(buf instanceof ArrayBuffer) || buf.byteLength === 0 || this.free.includes(buf)) return
    this.free.push(buf)
    // The largest are kept: they serve every smaller size.
    if (this.free.length > this.keep) {
      this.free.sort((a, b) => b.byteLength - a.byteLength)
      this.free.length = this.keep
    }
  }

  /** Buffers kept now. */
  get size(): number {
    return this.free.length
  }
}
