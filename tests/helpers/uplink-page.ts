// The uplink harness's page script (tests/helpers/uplink.ts), run in the app's page before the app
// (addInitScript, after CLOCK_IN_PAGE: it paints with globalThis.__clock). Playwright sends the function
// as source, so it names nothing outside itself; the few DOM shapes it uses are typed here (the helpers
// compile without the DOM library).

/** What the page counts, read by the harness as globalThis.__uplink. */
export interface UplinkPageStats {
  /** Bytes the page's encoders made (WebCodecs chunks, or MediaRecorder's). */
  made: number
  /** Bytes pushMedia calls took (answered). */
  pushed: number
  /** Camera frames the clock was painted into. */
  draws: number
  /** The live banner's data-state. */
  readonly state: string
  /** Video keyframes made, configure() calls, the sound read against its capture clock (ms). */
  diag: {
    keys: number
    configures: number
    audioMs: number
    audioSpanMs: number
    audioGapMs: number
  }
}

/**
 * The camera becomes its own frames with the wall clock painted into their luma, and the page counts
 * the bytes its encoders made and the bytes pushMedia calls took.
 */
export function uplinkPageScript(): void {
  type Chunk = { byteLength: number; type?: string }
  type EncoderInit = { output(chunk: Chunk, meta: unknown): unknown }
  type EncoderClass = new (init: EncoderInit) => {
    configure(c: unknown): unknown
    encode(data: unknown, o?: unknown): unknown
  }
  type AudioData = { numberOfFrames: number; sampleRate: number; timestamp: number }
  type Layout = { offset: number; stride: number }[]
  type Frame = {
    format: string | null
    codedWidth: number
    codedHeight: number
    timestamp: number
    duration: number | null
    allocationSize(): number
    copyTo(buf: Uint8Array): Promise<Layout>
    close(): void
  }
  type Track = { stop(): void }
  type Stream = { getVideoTracks(): Track[]; getAudioTracks(): Track[] }
  type Painter = { fillStyle: string; fillRect(x: number, y: number, w: number, h: number): void }
  type DataEvent = { data: { size: number } }
  type Handler = ((ev: DataEvent) => unknown) | null
  const g = globalThis as unknown as Record<string, unknown> & {
    document: { querySelector(s: string): { getAttribute(a: string): string | null } | null }
    MediaRecorder: { prototype: object }
    fetch: (input: unknown, init?: { body?: { byteLength?: number } }) => Promise<unknown>
    navigator: { mediaDevices: { getUserMedia(c: unknown): Promise<Stream> } }
    MediaStreamTrackProcessor: new (o: { track: Track }) => {
      readable: { getReader(): { read(): Promise<{ done: boolean; value?: Frame }> } }
    }
    MediaStreamTrackGenerator: new (o: { kind: string }) => Track & {
      writable: { getWriter(): { write(f: unknown): Promise<void> } }
    }
    VideoFrame: new (buf: Uint8Array, o: Record<string, unknown>) => unknown
    MediaStream: new (tracks: Track[]) => Stream
    __clock: { paint(ctx: Painter, ms: number): void }
    __uplink?: UplinkPageStats
  }
  const diag = { keys: 0, configures: 0, audioMs: 0, audioSpanMs: 0, audioGapMs: 0 }
  const stats: UplinkPageStats = {
    made: 0,
    pushed: 0,
    draws: 0,
    diag,
    get state() {
      return g.document.querySelector('[data-testid=live-banner]')?.getAttribute('data-state') ?? ''
    }
  }
  g.__uplink = stats
  const d = Object.getOwnPropertyDescriptor(g.MediaRecorder.prototype, 'ondataavailable')!
  Object.defineProperty(g.MediaRecorder.prototype, 'ondataavailable', {
    configurable: true,
    get() {
      return d.get!.call(this)
    },
    set(fn: Handler) {
      d.set!.call(
        this,
        fn &&
          ((ev: DataEvent) => {
            stats.made += ev.data.size
            return fn.call(this, ev)
          })
      )
    }
  })
  // The page's own encoder (WebCodecs, the default): what it made is its chunks' bytes, the video's
  // (its sound is read and encoded in a worker, where this script does not run; only where the worker
  // cannot start are the sound's chunks and the audio fields below counted). Beside it, what the dump
  // keeps (diag): video keyframes made and configure() calls, and the sound the page read: how much
  // media its buffers carried against how far their capture clock went (a gap there is sound the
  // page never read, a starved page's).
  let audioFirst: number | undefined
  let audioNext: number | undefined
  for (const name of ['VideoEncoder', 'AudioEncoder']) {
    const Real = g[name] as EncoderClass | undefined
    if (!Real) continue
    g[name] = class extends Real {
      constructor(init: EncoderInit) {
        super({
          ...init,
          output: (chunk: Chunk, meta: unknown) => {
            stats.made += chunk.byteLength
            if (name === 'VideoEncoder' && chunk.type === 'key') diag.keys++
            return init.output(chunk, meta)
          }
        })
      }
      override configure(c: unknown): unknown {
        if (name === 'VideoEncoder') diag.configures++
        return super.configure(c)
      }
      override encode(data: unknown, o?: unknown): unknown {
        if (name === 'AudioEncoder') {
          const a = data as AudioData
          const dur = (a.numberOfFrames / a.sampleRate) * 1000
          const ts = a.timestamp / 1000
          audioFirst ??= ts
          if (audioNext !== undefined && ts - audioNext > 5) diag.audioGapMs += ts - audioNext
          audioNext = ts + dur
          diag.audioMs += dur
          diag.audioSpanMs = audioNext - audioFirst
        }
        return super.encode(data, o)
      }
    }
  }
  const realFetch = g.fetch
  g.fetch = async (input, init) => {
    const r = await realFetch(input, init)
    if (String(input).includes('/rpc/pushMedia') && init && init.body)
      stats.pushed += init.body.byteLength || 0
    return r
  }
  const md = g.navigator.mediaDevices
  const real = md.getUserMedia.bind(md)
  // The clock goes into the camera's own frames (I420, as a camera gives them): the frames are read
  // (MediaStreamTrackProcessor), copied, the bar code written into the top 40 rows of the luma (the
  // blocks paintClock draws: 40x40 px, white = a 1 bit), and handed on (MediaStreamTrackGenerator).
  // A copy of 1.4 MB a frame; drawing the camera's <video> into a canvas instead took the page's thread
  // 30 ms a frame here (60% of it, measured with ONAIR_UPLINK_PROFILE), starving the app it measures.
  // The clock's paintClock, drawing into a luma plane: its fillRect fills rows of bytes.
  const paintY = (y: Uint8Array, stride: number, ms: number): void => {
    let v = 16
    g.__clock.paint(
      {
        set fillStyle(c: string) {
          v = c === '#ffffff' ? 235 : 16
        },
        get fillStyle() {
          return v === 235 ? '#ffffff' : '#000000'
        },
        fillRect(x: number, top: number, w: number, h: number) {
          for (let row = top; row < top + h; row++)
            y.fill(v, row * stride + x, row * stride + x + w)
        }
      },
      ms
    )
  }
  md.getUserMedia = async (constraints: unknown) => {
    const s = await real(constraints)
    const cam = s.getVideoTracks()[0]
    if (!cam) return s
    const reader = new g.MediaStreamTrackProcessor({ track: cam }).readable.getReader()
    const gen = new g.MediaStreamTrackGenerator({ kind: 'video' })
    const writer = gen.writable.getWriter()
    let buf: Uint8Array | undefined
    void (async () => {
      for (;;) {
        const r = await reader.read().catch(() => ({ done: true, value: undefined }))
        if (r.done || !r.value) break
        const f = r.value
        try {
          if (f.format !== 'I420' || f.codedWidth < 1280) {
            await writer.write(f)
            continue
          }
          // One buffer for every frame (a VideoFrame made from it copies it).
          if (!buf || buf.length < f.allocationSize()) buf = new Uint8Array(f.allocationSize())
          const layout = await f.copyTo(buf)
          paintY(buf.subarray(layout[0]!.offset), layout[0]!.stride, Date.now())
          const out = new g.VideoFrame(buf, {
            format: 'I420',
            codedWidth: f.codedWidth,
            codedHeight: f.codedHeight,
            timestamp: f.timestamp,
            duration: f.duration ?? undefined,
            layout
          })
          f.close()
          stats.draws++
          await writer.write(out)
        } catch {
          try {
            f.close()
          } catch {
            // Already closed.
          }
          break
        }
      }
    })()
    const stop = gen.stop.bind(gen)
    gen.stop = () => {
      cam.stop()
      stop()
    }
    return new g.MediaStream([gen, ...s.getAudioTracks()])
  }
}
