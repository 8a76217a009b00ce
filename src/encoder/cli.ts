// Onair's encoder process (#33): the page's raw frames and sound (on stdin, raw-media messages) to
// streamed Matroska with H.264 and AAC (on stdout), with libavcodec through node-av. Main talks to it
// over the IPC channel (encoder-channel.ts): config, then bitrate / keyframe / end; it answers ready
// or failed, then stats about every 500 ms. The log goes to stderr.
//
// `--probe` opens each encoder this machine might have on a small picture and prints what runs here
// (EncoderInfo[] as one JSON line), then exits.
//
// node-av's FFmpeg includes x264 (GPL): it is loaded in this process only, never in the app's main
// process, as ffmpeg-static's binary runs in its own processes.
import {
  configProblem,
  parseHostMessage,
  type EncoderConfig,
  type EncoderToHost,
  type HostToEncoder
} from '../shared/encoder-channel'
import { readRaw } from '../shared/raw-media'
import { EncodeSession } from './session'
import { probeEncoders } from './video'

const STATS_MS = 500
/** After main's end, how long stdin may take to reach its end. */
const END_WAIT_MS = 2000

const log = (line: string): void => {
  process.stderr.write(`${line}\n`)
}

const send = (m: EncoderToHost): void => {
  if (process.connected) process.send?.(m)
}

async function probe(): Promise<void> {
  const list = await probeEncoders()
  process.stdout.write(`${JSON.stringify(list)}\n`, () => process.exit(0))
}

function serve(): void {
  let session: EncodeSession | null = null
  let starting = false
  let statsTimer: NodeJS.Timeout | undefined
  let finished = false
  // Messages that arrive before the encoder is open wait for it (a few frames at most: main waits
  // for ready before it sends frames).
  const early: Buffer[] = []

  const finish = async (code: number): Promise<void> => {
    if (finished) return
    finished = true
    clearInterval(statsTimer)
    if (session) {
      await session.end()
      send({ type: 'stats', ...session.tick() })
    }
    process.stdout.end(() => {
      process.disconnect?.()
      process.exit(code)
    })
  }

  // Chunks wait in a list until the message they belong to is whole (a picture comes in many pipe
  // reads: joining at every read would copy it over and over).
  let parts: Buffer[] = []
  let have = 0
  let need = 0
  const feed = (chunk: Buffer): void => {
    parts.push(chunk)
    have += chunk.length
    if (have < need) return
    let buf = parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts, have)
    let at = 0
    for (;;) {
      const r = readRaw(buf, at)
      if (r.ok === 'partial') {
        need = buf.length - at + r.need
        break
      }
      if (!r.ok) {
        log(`stdin: ${r.error}`)
        send({ type: 'failed', reason: `the raw media could not be read: ${r.error}` })
        void finish(1)
        return
      }
      session?.take(r.message)
      at = r.next
    }
    buf = buf.subarray(at)
    parts = buf.length ? [buf] : []
    have = buf.length
    if (session?.error) {
      send({ type: 'failed', reason: `the encoder failed: ${session.error.message}` })
      void finish(1)
    }
  }

  const begin = async (config: EncoderConfig): Promise<void> => {
    if (session || starting) return
    starting = true
    try {
      const r = await EncodeSession.start(config, {
        write: (b) => process.stdout.write(b),
        log
      })
      session = r.session
      send({
        type: 'ready',
        encoder: session.encoderId,
        label: session.encoderLabel,
        ...(r.fallback ? { fallback: r.fallback } : {})
      })
      log(`encoding ${config.width}x${config.height}@${config.fps} with ${session.encoderLabel}`)
      statsTimer = setInterval(() => {
        if (session) send({ type: 'stats', ...session.tick() })
      }, STATS_MS)
      for (const c of early.splice(0)) feed(c)
    } catch (e) {
      send({ type: 'failed', reason: (e as Error).message })
      void finish(1)
    }
  }

  process.on('message', (raw) => {
    const m: HostToEncoder | undefined = parseHostMessage(raw)
    if (!m) {
      log(`ignored a message: ${JSON.stringify(raw).slice(0, 200)}`)
      if ((raw as { type?: unknown } | null)?.type === 'config')
        send({
          type: 'failed',
          reason: `the encoder cannot take ${configProblem(raw) ?? 'these settings'}`
        })
      return
    }
    if (m.type === 'config') void begin(m)
    else if (m.type === 'bitrate') session?.setBitrate(m.kbps)
    else if (m.type === 'keyframe') session?.requestKeyframe()
    // End: the frames main wrote before it said so may still be in the pipe; they come before stdin's
    // end (main ends it at once), and are encoded first. A main that never ends stdin is not waited for long.
    else setTimeout(() => void finish(0), END_WAIT_MS).unref()
  })
  // The app is gone (its end of the channel closed): nobody reads the output any more.
  process.on('disconnect', () => void finish(0))
  process.stdin.on('data', (c: Buffer) => {
    if (session) feed(c)
    else early.push(c)
  })
  process.stdin.on('end', () => void finish(0))
  // A reader that went away must not take the process down with EPIPE.
  process.stdout.on('error', () => void finish(1))
}

if (process.argv.includes('--probe')) void probe()
else if (!process.send) {
  log('the encoder runs as a child of Onair (it needs the IPC channel); try --probe')
  process.exit(2)
} else serve()
