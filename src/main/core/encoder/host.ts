// Main's side of Onair's encoder process (#33): starts it for a run (the same way as the local studio:
// Electron's own Node with ELECTRON_RUN_AS_NODE, or node with tsx in dev and tests), hands it the
// page's raw frames and sound, takes its Matroska, and passes on the uplink's bitrate and keyframe
// requests. The process itself (and node-av's FFmpeg with x264, GPL) stays out of main: this file only
// speaks to it.
//
// Frames are skipped here too, as OBS skips before its encoder: when the child's stdin holds more than
// MAX_PIPE_FRAMES pictures it has not taken yet, a new picture is left out and counted, so the caller
// is never held up and the encoder never works through a growing backlog. Sound is always sent.
import {
  parseEncoderMessage,
  type EncoderConfig,
  type EncoderStats,
  type HostToEncoder
} from '../../../shared/encoder-channel'
import type {
  EncoderInfo,
  EncoderStartFailure,
  HardwareFallback,
  VideoEncoderId
} from '../../../shared/contract'
import { i420Bytes, readAllRaw, RAW_HEADER_BYTES, type RawHeader } from '../../../shared/raw-media'
import {
  forceKill,
  runChild,
  spawnChild,
  stopChild,
  type ChildProcess
} from '../../../node/process'
import { appChildCommand, type ChildCommand } from '../child-command'

/** One message to write: its header's bytes and its payload's, written together. */
interface RawParts {
  header: RawHeader
  headerBytes: Uint8Array
  parts: Uint8Array[]
}

/** Pictures the child's stdin may hold before the host skips new ones. */
export const MAX_PIPE_FRAMES = 2
const READY_TIMEOUT_MS = 20_000
const STOP_WAIT_MS = 5_000
const PROBE_TIMEOUT_MS = 30_000

export type EncoderStart =
  | { ok: true; encoder: VideoEncoderId; label: string; fallback?: HardwareFallback }
  | { ok: false; failure: EncoderStartFailure }

export type RawPushed = { ok: true; skipped: number } | { ok: false; error: string }

export interface HostStats extends EncoderStats {
  /** Of skipped: the pictures the host left out because the encoder's stdin was full. */
  hostSkipped: number
}

export interface EncoderHostOptions {
  command?: ChildCommand
  /** The app log: the encoder's stderr lines. */
  log?: (line: string) => void
}

/** Dev and tests: node + tsx on src/encoder/cli.ts; bundled: encoder.js beside main's script. */
export function defaultEncoderCommand(): ChildCommand {
  return appChildCommand('encoder', 'src/encoder/cli.ts')
}

export class EncoderHost {
  private child: ChildProcess | null = null
  private config: EncoderConfig | null = null
  private readonly mediaListeners = new Set<(chunk: Buffer) => void>()
  private readonly endListeners = new Set<(reason?: string) => void>()
  private last: EncoderStats = { framesIn: 0, encoded: 0, skipped: 0, encodeMs: 0, videoKbps: 0 }
  private hostSkipped = 0
  private frameBytes = 0
  private stopping = false
  private stdoutEnded: Promise<void> = Promise.resolve()
  private readonly cmd: ChildCommand

  constructor(private readonly o: EncoderHostOptions = {}) {
    this.cmd = o.command ?? defaultEncoderCommand()
  }

  get pid(): number | undefined {
    return this.child?.pid
  }

  /** Starts the encoder process for config; resolves once it runs (or with why it cannot). */
  start(config: EncoderConfig): Promise<EncoderStart> {
    if (this.child) return Promise.resolve({ ok: false, failure: { kind: 'busy' } })
    this.config = config
    this.frameBytes = RAW_HEADER_BYTES + i420Bytes(config.width, config.height)
    this.stopping = false
    const child = spawnChild(this.cmd.command, this.cmd.args, {
      env: { ...process.env, ...this.cmd.env },
      stdio: ['pipe', 'pipe', 'pipe', 'ipc'],
      kind: 'encoder'
    })
    this.child = child
    const stderrTail: string[] = []
    let lineRest = ''
    child.stderr?.on('data', (d: Buffer) => {
      const lines = (lineRest + d.toString()).split(/\r?\n/)
      lineRest = lines.pop() ?? ''
      for (const line of lines) {
        if (!line.trim()) continue
        stderrTail.push(line)
        if (stderrTail.length > 5) stderrTail.shift()
        this.o.log?.(`encoder: ${line}`)
      }
    })
    // A closed stdin (the child died) must not throw in the caller.
    child.stdin?.on('error', () => undefined)
    this.stdoutEnded = new Promise((resolve) => {
      child.stdout?.on('end', resolve)
      child.once('exit', () => resolve())
    })
    child.stdout?.on('data', (chunk: Buffer) => {
      for (const cb of this.mediaListeners) cb(chunk)
    })
    child.on('message', (raw) => {
      const m = parseEncoderMessage(raw)
      if (m?.type === 'stats') {
        const { type: _t, ...s } = m
        this.last = s
      }
    })
    child.once('exit', (code, signal) => {
      if (this.child === child) this.child = null
      const reason = this.stopping
        ? undefined
        : `the encoder process stopped (${signal ?? `code ${code}`})${stderrTail.length ? `: ${stderrTail.slice(-2).join(' | ')}` : ''}`
      for (const cb of this.endListeners) cb(reason)
    })
    return new Promise<EncoderStart>((resolve) => {
      let settled = false
      const done = (r: EncoderStart): void => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        child.off('message', onMessage)
        if (!r.ok) {
          this.stopping = true
          forceKill(child)
        }
        resolve(r)
      }
      const onMessage = (raw: unknown): void => {
        const m = parseEncoderMessage(raw)
        if (m?.type === 'ready')
          done({
            ok: true,
            encoder: m.encoder,
            label: m.label,
            ...(m.fallback ? { fallback: m.fallback } : {})
          })
        else if (m?.type === 'failed')
          done({ ok: false, failure: { kind: 'refused', detail: m.reason } })
      }
      const timer = setTimeout(
        () => done({ ok: false, failure: { kind: 'timeout' } }),
        READY_TIMEOUT_MS
      )
      child.on('message', onMessage)
      child.once('error', (e) =>
        done({ ok: false, failure: { kind: 'spawn-failed', detail: e.message } })
      )
      child.once('exit', (code, signal) =>
        done({
          ok: false,
          failure: { kind: 'exited', signal, code, stderr: stderrTail.slice(-2) }
        })
      )
      this.send({ type: 'config', ...config })
    })
  }

  /**
   * Hands one or more whole raw-media messages to the encoder. A picture is skipped (and counted) while
   * the encoder's stdin holds more than MAX_PIPE_FRAMES pictures; nothing here waits for the encoder.
   * The bytes are handed on as they are, not copied (a 1080p picture is 3 MB): the caller gives them
   * up and must not change them afterwards (a call's body and an IPC message are fresh each time).
   */
  pushRaw(bytes: Uint8Array): RawPushed {
    const child = this.child
    const config = this.config
    if (!child?.stdin || !config || this.stopping)
      return { ok: false, error: 'the encoder is not running' }
    const read = readAllRaw(bytes)
    if (!read.ok) return read
    const wrong = this.wrongSize(read.messages.map((m) => m.header))
    if (wrong) return wrong
    if (!this.full(child)) {
      // One write, a view of the caller's bytes (the usual case: one picture, or a picture and sound).
      child.stdin.write(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))
      return { ok: true, skipped: 0 }
    }
    return this.writeSkipping(
      child,
      read.messages.map((m) => ({
        header: m.header,
        headerBytes: bytes.subarray(
          m.payload.byteOffset - bytes.byteOffset - RAW_HEADER_BYTES,
          m.payload.byteOffset - bytes.byteOffset
        ),
        parts: [m.payload]
      }))
    )
  }

  private wrongSize(headers: readonly RawHeader[]): { ok: false; error: string } | undefined {
    const config = this.config!
    for (const h of headers)
      if (h.kind === 'video' && (h.width !== config.width || h.height !== config.height))
        return {
          ok: false,
          error: `raw video: ${h.width}x${h.height} where the run encodes ${config.width}x${config.height}`
        }
    return undefined
  }

  /** The encoder's stdin holds more than MAX_PIPE_FRAMES pictures it has not taken yet. */
  private full(child: ChildProcess): boolean {
    return (child.stdin?.writableLength ?? 0) > MAX_PIPE_FRAMES * this.frameBytes
  }

  /** Writes each message (its pieces gathered into one write); a picture finding stdin full is skipped. */
  private writeSkipping(child: ChildProcess, messages: readonly RawParts[]): RawPushed {
    const stdin = child.stdin!
    const view = (b: Uint8Array): Buffer => Buffer.from(b.buffer, b.byteOffset, b.byteLength)
    let skipped = 0
    stdin.cork()
    try {
      for (const m of messages) {
        if (m.header.kind === 'video' && this.full(child)) {
          skipped++
          continue
        }
        stdin.write(view(m.headerBytes))
        for (const p of m.parts) stdin.write(view(p))
      }
    } finally {
      stdin.uncork()
    }
    this.hostSkipped += skipped
    return { ok: true, skipped }
  }

  /** The encoder's new target (kbit/s): x264 takes it at its next frame. */
  setBitrate(kbps: number): void {
    this.send({ type: 'bitrate', kbps: Math.round(kbps) })
  }

  requestKeyframe(): void {
    this.send({ type: 'keyframe' })
  }

  /** The Matroska stream, chunk by chunk as it comes (the header first). Returns the unsubscribe. */
  onMedia(cb: (chunk: Buffer) => void): () => void {
    this.mediaListeners.add(cb)
    return () => this.mediaListeners.delete(cb)
  }

  /** The process ended: reason is set when it was not asked to (a crash, a failure). */
  onEnd(cb: (reason?: string) => void): () => void {
    this.endListeners.add(cb)
    return () => this.endListeners.delete(cb)
  }

  /** The latest figures (about every 500 ms), the host's own skips added. */
  stats(): HostStats {
    return {
      ...this.last,
      skipped: this.last.skipped + this.hostSkipped,
      hostSkipped: this.hostSkipped
    }
  }

  /** Says end (the encoder empties itself), waits for its stream's end (bounded), then makes sure. */
  async stop(waitMs = STOP_WAIT_MS): Promise<void> {
    const child = this.child
    if (!child) return
    this.stopping = true
    const ended = this.stdoutEnded
    await stopChild(child, {
      graceful: () => {
        this.send({ type: 'end' })
        child.stdin?.end()
      },
      killAfterMs: waitMs
    })
    await ended
  }

  private send(m: HostToEncoder): void {
    const child = this.child
    // With a callback, a channel that closed meanwhile (the child died, or never started) is no
    // 'error' event: its exit is what says so.
    if (child?.connected) child.send(m, () => undefined)
  }
}

/** Probes by command (the app has one; tests may pass a broken one). */
const probed = new Map<string, Promise<EncoderInfo[]>>()

/**
 * Which encoders open on this machine (each candidate tried on a small picture in an encoder
 * process), once per app start. A probe that cannot run at all lists x264 as unavailable with why
 * (and is tried again at the next call).
 */
export function probeEncoders(
  command: ChildCommand = defaultEncoderCommand()
): Promise<EncoderInfo[]> {
  const key = JSON.stringify(command)
  const cached = probed.get(key)
  if (cached) return cached
  const p = (async (): Promise<EncoderInfo[]> => {
    const r = await runChild(command.command, [...command.args, '--probe'], {
      env: { ...process.env, ...command.env },
      timeoutMs: PROBE_TIMEOUT_MS
    })
    const line = r.stdout.trim().split('\n').pop() ?? ''
    try {
      const list = JSON.parse(line) as EncoderInfo[]
      if (Array.isArray(list) && list.length) return list
    } catch {
      // Reported below.
    }
    const probeFailure: EncoderStartFailure = r.timedOut
      ? { kind: 'timeout' }
      : r.error
        ? { kind: 'spawn-failed', detail: r.error.message }
        : {
            kind: 'exited',
            signal: r.signal,
            code: r.code,
            stderr: r.stderr.trim().split('\n').filter(Boolean).slice(-2)
          }
    probed.delete(key)
    return [
      { id: 'x264', label: 'x264 (software)', hardware: false, available: false, probeFailure }
    ]
  })()
  probed.set(key, p)
  return p
}
