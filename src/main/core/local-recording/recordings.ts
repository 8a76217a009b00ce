// Record on this computer while live (OBS's "record while streaming"): a copy of exactly what is sent,
// with no second encode, written as the broadcast goes.
// - Camera, screen or scene (media from the renderer): main writes the renderer's Matroska byte stream
//   itself, the same bytes the broadcaster's ffmpeg is fed. One file for the whole run: a reconnect starts
//   a new ffmpeg, but the renderer's stream goes on, and so does the file.
// - Test pattern (made inside the broadcaster's ffmpeg): that ffmpeg writes its encoded output twice
//   through the tee muxer, to the ingest and to a Matroska file (args.ts). A reconnect starts a new
//   ffmpeg, hence a new part; a clean stop joins the parts.
// Matroska written as it goes plays after a crash. A clean stop makes it an MP4 an editor takes
// (finishCopy): the picture copied, never encoded again, its track counting time in frames of the
// output's rate; the sound AAC (the page's Opus is encoded once more: QuickTime and several editors refuse Opus
// in MP4). When MP4 cannot hold the picture (VP8), a Matroska with its length written. A copy that
// Onair's death cut off is marked (cutAt) and finished the same way on the next start (OBS's hybrid
// MP4 makes a crash-cut file whole, too). Finishing writes a new file and only then replaces the old
// one: a death while finishing leaves the Matroska, finished again on the start after.
// A full disk stops the file with a named error and never touches the broadcast. A small index in the
// app data folder remembers each file for the sessions list.
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  statfsSync,
  statSync,
  writeFileSync
} from 'node:fs'
import { rename, rm, statfs, writeFile } from 'node:fs/promises'
import { homedir } from 'node:os'
import { basename, dirname, extname, join } from 'node:path'
import type { WriteStream } from 'node:fs'
import type { LocalRecordingInfo, LocalRecordingView, SessionView } from '../../../shared/contract'
import { LOW_SPACE_BYTES } from '../../../shared/local-recording'
import { runChild } from '../../../node/process'
import { recordingFileName } from '../download-name'
import { defaultRecordingFolder, folderLabel } from './folder'

export interface LocalRecordingsOptions {
  appDataDir: string
  /** The folder setting (undefined: the default folder). */
  folder: () => string | undefined
  /** The default folder (else the OS's videos folder, hostDefaultFolder): tests keep theirs apart. */
  defaultFolder?: string
  ffmpeg: () => string
  emit?: (v: LocalRecordingView) => void
  log?: (line: string) => void
  now?: () => number
}

/** A session and a local recording belong together when they started within this much of each other. */
const MATCH_MS = 2 * 60_000
/**
 * ...and the session began before the recording ended (give or take this much for the service's
 * clock): a later broadcast of the stream within those two minutes is not given an earlier one's file.
 */
const ENDED_SLACK_MS = 5_000
/** More than this waiting to be written: the disk cannot keep up, the file stops (the broadcast goes on). */
const MAX_PENDING_BYTES = 64 * 1024 * 1024
const INDEX_LIMIT = 500
/** A test pattern's file that has not grown for this long (clusters are 1 s) may have hit a full disk. */
const STILL_MS = 3000
/** A cut-off file that has not grown for this long is no longer written by anyone. */
const SETTLE_MS = 1500

/** Next to nothing free (less than 1 MiB) where dir is. */
function diskFull(dir: string): boolean {
  try {
    const s = statfsSync(dir)
    return s.bavail * s.bsize < 1024 * 1024
  } catch {
    return false
  }
}

export function hostDefaultFolder(): string {
  return defaultRecordingFolder({
    env: process.env,
    platform: process.platform,
    home: homedir(),
    readText: (p) => {
      try {
        return readFileSync(p, 'utf8')
      } catch {
        return undefined
      }
    }
  })
}

/** Free bytes on the disk that holds dir (or its nearest existing parent). */
export async function freeBytes(dir: string): Promise<number | undefined> {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(d)) {
      try {
        const s = await statfs(d)
        return s.bavail * s.bsize
      } catch {
        return undefined
      }
    }
    if (dirname(d) === d) return undefined
  }
}

export function diskFullError(
  folder: string,
  seconds: number
): NonNullable<LocalRecordingView['error']> {
  return {
    code: 'disk-full',
    message: `The disk holding ${folder} is full: recording on this computer stopped after ${clock(seconds)}. The broadcast goes on.`,
    hint: 'Free some space, or choose another folder for the next broadcast.'
  }
}

/**
 * What the index keeps of a file: its view, and what finishing it needs (the run's frame rate and
 * sound bitrate), which the next start would not know otherwise.
 */
type IndexEntry = LocalRecordingView & { fps?: number; audioKbps?: number }

const clock = (s: number): string =>
  `${Math.floor(s / 60)}:${String(Math.floor(s % 60)).padStart(2, '0')}`

export class LocalRecordings {
  private readonly indexFile: string
  private entries: IndexEntry[]
  private readonly now: () => number
  private whole: Promise<void> | undefined

  constructor(private readonly o: LocalRecordingsOptions) {
    this.now = o.now ?? Date.now
    this.indexFile = join(o.appDataDir, 'local-recordings.json')
    this.entries = this.load()
  }

  folder(): string {
    return this.o.folder() || this.defaultFolder()
  }

  private defaultFolder(): string {
    return this.o.defaultFolder ?? hostDefaultFolder()
  }

  async info(): Promise<LocalRecordingInfo> {
    const folder = this.folder()
    const free = await freeBytes(folder)
    return {
      folder,
      label: folderLabel(folder),
      defaultFolder: this.defaultFolder(),
      freeBytes: free,
      lowSpace: free !== undefined && free < LOW_SPACE_BYTES
    }
  }

  list(): LocalRecordingView[] {
    return this.entries.map((e) => ({ ...e }))
  }

  get(id: string): LocalRecordingView | undefined {
    const e = this.entries.find((x) => x.id === id)
    return e && { ...e }
  }

  /**
   * The local recording of a session: same stream, started within two minutes of it, and not ended
   * before the session began.
   */
  forSession(s: Pick<SessionView, 'parentId' | 'createdAt'>): LocalRecordingView | undefined {
    let best: LocalRecordingView | undefined
    for (const e of this.entries) {
      if (e.streamId !== s.parentId) continue
      if (e.endedAt !== undefined && s.createdAt > e.endedAt + ENDED_SLACK_MS) continue
      const d = Math.abs(e.startedAt - s.createdAt)
      if (d <= MATCH_MS && (!best || d < Math.abs(best.startedAt - s.createdAt))) best = e
    }
    return best && { ...best }
  }

  /** Starts the file of one run. Throws (a named AppFailure-like error) only if the folder cannot be made. */
  begin(run: {
    runId: string
    streamId: string
    streamName: string
    /** The output's frame rate and sound bitrate: the finished MP4 is set to them. */
    fps?: number
    audioKbps?: number
  }): LocalRecording {
    const folder = this.folder()
    mkdirSync(folder, { recursive: true })
    const startedAt = this.now()
    const base = uniqueBase(
      folder,
      recordingFileName(run.streamName, startedAt).replace(/\.mp4$/, '')
    )
    const entry: IndexEntry = {
      id: run.runId,
      runId: run.runId,
      streamId: run.streamId,
      streamName: run.streamName,
      startedAt,
      file: join(folder, `${base}.mkv`),
      state: 'recording',
      ...(run.fps ? { fps: run.fps } : {}),
      ...(run.audioKbps ? { audioKbps: run.audioKbps } : {})
    }
    this.entries.push(entry)
    this.save()
    this.o.emit?.({ ...entry })
    return new LocalRecording(this, entry, folder, base)
  }

  /**
   * Makes whole, one after the other, the copies a death of Onair cut off (the start after it): each
   * becomes an MP4 (or a Matroska with its length), keeps its mark, and gets its length. Called once
   * at start, in the background; resolves when all are done (a failure is logged, the file kept).
   */
  finishInterrupted(): Promise<void> {
    return (this.whole ??= (async () => {
      for (const e of this.entries) {
        if (e.state !== 'interrupted' || e.durationSec !== undefined) continue
        const inputs = [e.file, ...(e.moreFiles ?? [])].filter((f) => existsSync(f))
        if (!inputs.length || extname(e.file).toLowerCase() !== '.mkv') continue
        // A test pattern's file is written by the dead app's ffmpeg, which may outlive it a moment.
        await settled(inputs)
        const folder = dirname(e.file)
        const done = await finishCopy(
          this.ffmpeg,
          inputs,
          folder,
          basename(e.file, extname(e.file)),
          e
        )
        if (!done) {
          this.log(`local recording: ${e.file} could not be finished; it is kept as it is`)
          continue
        }
        this.replaced(e, done, inputs)
        await removeAll(inputs, done.file)
      }
    })())
  }

  /** @internal A finished file in place of its inputs: the index points at it before they go. */
  replaced(e: IndexEntry, done: Finished, inputs: string[]): void {
    e.file = done.file
    e.durationSec = done.durationSec
    delete e.moreFiles
    this.changed(e)
    this.log(
      `local recording: finished ${done.file} (${clock(done.durationSec)}, from ${inputs.length} file(s))`
    )
  }

  /** @internal the recording's own changes. */
  changed(e: LocalRecordingView): void {
    const i = this.entries.findIndex((x) => x.id === e.id)
    if (i >= 0) this.entries[i] = { ...e }
    this.save()
    this.o.emit?.({ ...e })
  }

  /** @internal */
  get ffmpeg(): string {
    return this.o.ffmpeg()
  }

  /** @internal */
  log(line: string): void {
    this.o.log?.(line)
  }

  private load(): IndexEntry[] {
    try {
      const parsed = JSON.parse(readFileSync(this.indexFile, 'utf8')) as unknown
      if (!Array.isArray(parsed)) return []
      const list = parsed.filter(
        (e): e is IndexEntry =>
          typeof e === 'object' && e !== null && typeof (e as IndexEntry).file === 'string'
      )
      // Still "recording" from a run before: the app closed without a word. Its .mkv plays; it was
      // cut off when it was last written (finishInterrupted makes it whole).
      let changed = false
      for (const e of list)
        if (e.state === 'recording') {
          e.state = 'interrupted'
          e.cutAt = lastWritten([e.file, ...(e.moreFiles ?? [])]) ?? e.startedAt
          changed = true
        }
      if (changed) this.writeIndex(list)
      return list
    } catch {
      return []
    }
  }

  private save(): void {
    this.entries = this.entries.slice(-INDEX_LIMIT)
    this.writeIndex(this.entries)
  }

  private writeIndex(list: IndexEntry[]): void {
    try {
      mkdirSync(this.o.appDataDir, { recursive: true })
      const tmp = `${this.indexFile}.${process.pid}.tmp`
      writeFileSync(tmp, JSON.stringify(list, null, 1))
      renameSync(tmp, this.indexFile)
    } catch (e) {
      this.log(`local recording: the index could not be written: ${(e as Error).message}`)
    }
  }
}

/** The newest modification time of these files (ms since epoch), or undefined when none is there. */
function lastWritten(files: string[]): number | undefined {
  let t: number | undefined
  for (const f of files) {
    try {
      t = Math.max(t ?? 0, statSync(f).mtimeMs)
    } catch {
      // Not there.
    }
  }
  return t === undefined ? undefined : Math.round(t)
}

/** Once these files have stopped growing (looked at every 1.5 s, for 30 s at most). */
async function settled(files: string[]): Promise<void> {
  const size = (): number =>
    files.reduce((n, f) => n + (statSync(f, { throwIfNoEntry: false })?.size ?? 0), 0)
  for (let i = 0, was = size(); i < 20; i++) {
    await new Promise((r) => setTimeout(r, SETTLE_MS))
    const now = size()
    if (now === was) return
    was = now
  }
}

/** The inputs of a finished file, once it is in place (never the finished file itself). */
async function removeAll(inputs: string[], keep: string): Promise<void> {
  for (const f of inputs) if (f !== keep) await rm(f, { force: true })
}

function uniqueBase(folder: string, base: string): string {
  const taken = (b: string): boolean =>
    existsSync(join(folder, `${b}.mkv`)) || existsSync(join(folder, `${b}.mp4`))
  if (!taken(base)) return base
  for (let i = 2; ; i++) if (!taken(`${base} (${i})`)) return `${base} (${i})`
}

/** One run's file(s). */
export class LocalRecording {
  private out: WriteStream | null = null
  private written = 0
  private parts: string[] = []
  private stopped = false
  private finishing: Promise<void> | undefined
  private lastSize = -1
  private grewAt = 0

  constructor(
    private readonly all: LocalRecordings,
    private readonly entry: IndexEntry,
    private readonly folder: string,
    private readonly base: string
  ) {}

  get view(): LocalRecordingView {
    return { ...this.entry }
  }

  /** Media path: the renderer's next bytes, in order. Never throws, never waits: the broadcast comes first. */
  write(chunk: Buffer): void {
    if (this.stopped) return
    if (!this.out) {
      this.out = createWriteStream(this.entry.file, { flags: 'wx' })
      this.out.on('error', (e: NodeJS.ErrnoException) => this.fail(e))
    }
    if (this.out.writableLength > MAX_PENDING_BYTES) {
      this.fail(Object.assign(new Error('the disk does not keep up'), { code: 'EIO' }))
      return
    }
    this.written += chunk.length
    // A copy: the caller's buffer goes on to ffmpeg and may be reused.
    this.out.write(Buffer.from(chunk))
  }

  /** Test pattern path: where the next ffmpeg attempt writes its part (the tee's second output). */
  nextPart(): string | undefined {
    if (this.stopped) return undefined
    const n = this.parts.length + 1
    const file = n === 1 ? this.entry.file : join(this.folder, `${this.base} part ${n}.mkv`)
    this.parts.push(file)
    if (n > 1) {
      this.entry.moreFiles = this.parts.slice(1)
      this.all.changed(this.entry)
    }
    return file
  }

  /**
   * The current part's size on disk (test pattern): what its ffmpeg has written so far, read with each
   * progress block. The tee ignores a failed file, so this is also where a full disk is noticed: the
   * file stops growing while the disk has (next to) nothing free.
   */
  partBytes(): number | undefined {
    const part = this.parts[this.parts.length - 1]
    if (!part) return undefined
    let size: number
    try {
      size = statSync(part).size
    } catch {
      return undefined
    }
    const now = Date.now()
    if (size !== this.lastSize) {
      this.lastSize = size
      this.grewAt = now
    } else if (!this.stopped && size > 0 && now - this.grewAt > STILL_MS && diskFull(this.folder))
      this.fail(Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }))
    return size
  }

  private fail(e: NodeJS.ErrnoException): void {
    if (this.stopped) return
    this.stopped = true
    const seconds = (Date.now() - this.entry.startedAt) / 1000
    const error =
      e.code === 'ENOSPC' || e.code === 'EDQUOT'
        ? diskFullError(this.folder, seconds)
        : {
            code: 'local-recording',
            message: `Recording on this computer stopped: ${e.message}. The broadcast goes on.`
          }
    this.entry.error = error
    this.entry.state = 'stopped'
    this.entry.endedAt = Date.now()
    this.all.log(`local recording: ${error.message}`)
    const out = this.out
    this.out = null
    out?.destroy()
    this.all.changed(this.entry)
  }

  /** The run ended in order: close the file and finish it (finishCopy; kept as written if it cannot be). */
  finish(): Promise<void> {
    return (this.finishing ??= this.doFinish())
  }

  private async doFinish(): Promise<void> {
    const wasStopped = this.stopped
    this.stopped = true
    const out = this.out
    this.out = null
    if (out) await new Promise<void>((r) => out.end(() => r()))
    this.entry.endedAt ??= Date.now()
    const inputs = this.parts.length ? this.parts.filter((p) => existsSync(p)) : [this.entry.file]
    if (wasStopped || !existsSync(inputs[0] ?? '')) {
      if (!wasStopped) this.entry.state = 'stopped'
      this.all.changed(this.entry)
      return
    }
    const done = await finishCopy(this.all.ffmpeg, inputs, this.folder, this.base, this.entry)
    this.entry.state = 'saved'
    if (done) {
      this.all.replaced(this.entry, done, inputs)
      await removeAll(inputs, done.file)
    } else {
      this.all.log(
        `local recording: kept as it was written (${this.entry.file}): it could not be finished`
      )
      this.all.changed(this.entry)
    }
  }
}

/** A finished copy: its file, and how long it plays. */
export interface Finished {
  file: string
  durationSec: number
}

/** What ffmpeg says of a file's first video and audio streams: codec names, the frame rate it reads. */
interface Probed {
  video?: string
  audio?: string
  fps?: number
}

async function probe(ffmpeg: string, file: string): Promise<Probed> {
  // With no output ffmpeg describes the input and exits 1: only its description is read.
  const r = await runChild(ffmpeg, ['-hide_banner', '-nostdin', '-i', file], { timeoutMs: 60_000 })
  const out: Probed = {}
  for (const line of r.stderr.split('\n')) {
    const m = /Stream #\d+:\d+[^:]*: (Video|Audio): (\w+)/.exec(line)
    if (m?.[1] === 'Video' && !out.video) {
      out.video = m[2]
      const fps = /, ([\d.]+) fps/.exec(line)
      if (fps) out.fps = Math.round(Number(fps[1]))
    } else if (m?.[1] === 'Audio' && !out.audio) out.audio = m[2]
  }
  return out
}

/** The length of what ffmpeg wrote, from its -progress lines (the last out_time it reported). */
function progressSeconds(stdout: string): number | undefined {
  let us: number | undefined
  for (const m of stdout.matchAll(/^out_time_(?:us|ms)=(\d+)$/gm))
    us = Math.max(us ?? 0, Number(m[1]))
  return us === undefined ? undefined : Math.round(us / 1000) / 1000
}

/**
 * Makes the copy a file an editor takes, into a new file first (`<base>.mp4.part`), renamed into place
 * only once ffmpeg has written it all; the inputs stay (the caller removes them once the index points at
 * the new file). The picture is copied, never encoded again; the sound becomes AAC (copied when it is
 * AAC already: the test pattern's). The picture's track counts time in frames of the output's rate:
 * the page's frames carry the camera's times (0, 34, 69, 99, 135 ms...), and copied on a millisecond
 * clock the header claimed 16000 fps and a decode, rounding them to frames, met two in one frame
 * ("non monotonically increasing dts"). In frames each has a frame's place (two that round to the same
 * frame: ffmpeg moves the second one on by a frame). When MP4 cannot hold the picture (VP8), a new
 * Matroska of the same bytes, now with its length. Parts (a test pattern's reconnects) are joined by
 * the concat demuxer. Undefined when none could be written (the inputs are then untouched).
 */
export async function finishCopy(
  ffmpeg: string,
  inputs: string[],
  folder: string,
  base: string,
  o: { fps?: number; audioKbps?: number } = {}
): Promise<Finished | undefined> {
  const p = await probe(ffmpeg, inputs[0]!)
  const fps = o.fps ?? p.fps
  const audio =
    p.audio === undefined
      ? []
      : p.audio === 'aac'
        ? ['-c:a', 'copy']
        : ['-c:a', 'aac', '-b:a', `${o.audioKbps ?? 128}k`]
  const mp4 = ['-movflags', '+faststart', '-f', 'mp4']
  const tries: { ext: 'mp4' | 'mkv'; args: string[] }[] = [
    ...(fps && p.video
      ? [
          {
            ext: 'mp4' as const,
            args: ['-c:v', 'copy', '-video_track_timescale', String(fps), ...audio, ...mp4]
          }
        ]
      : []),
    { ext: 'mp4', args: ['-c:v', 'copy', ...audio, ...mp4] },
    { ext: 'mkv', args: ['-c', 'copy', '-f', 'matroska'] }
  ]
  let list: string | undefined
  const input: string[] = []
  if (inputs.length > 1) {
    list = join(folder, `.onair-concat-${process.pid}-${Date.now()}.txt`)
    await writeFile(list, inputs.map((f) => `file '${f.replace(/'/g, "'\\''")}'\n`).join(''))
    input.push('-f', 'concat', '-safe', '0', '-i', list)
  } else input.push('-i', inputs[0]!)
  try {
    for (const t of tries) {
      const file = join(folder, `${base}.${t.ext}`)
      const part = `${file}.part`
      const r = await runChild(
        ffmpeg,
        [
          '-hide_banner',
          '-nostdin',
          '-loglevel',
          'error',
          '-nostats',
          '-progress',
          'pipe:1',
          // MediaRecorder's Matroska may lack timestamps in places; a remux needs them.
          '-fflags',
          '+genpts',
          ...input,
          '-map',
          '0:v?',
          '-map',
          '0:a?',
          ...t.args,
          '-y',
          part
        ],
        // An hour of sound is encoded in about a minute and a half on a slow machine.
        { timeoutMs: 60 * 60_000, maxBytes: 4 * 1024 * 1024 }
      )
      const durationSec = progressSeconds(r.stdout)
      if (r.code === 0 && !r.error && durationSec !== undefined) {
        try {
          await rename(part, file)
          return { file, durationSec }
        } catch {
          // The old file is open elsewhere (Windows): it stays as it is; this attempt goes.
        }
      }
      await rm(part, { force: true })
    }
    return undefined
  } finally {
    if (list) await rm(list, { force: true })
  }
}
