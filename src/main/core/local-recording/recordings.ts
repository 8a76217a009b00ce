// Record on this computer while live (OBS's "record while streaming"): a copy of exactly what is sent,
// with no second encode, written as the broadcast goes.
// - Camera, screen or scene (media from the renderer): main writes the renderer's Matroska byte stream
//   itself, the same bytes the broadcaster's ffmpeg is fed. One file for the whole run: a reconnect starts
//   a new ffmpeg, but the renderer's stream goes on, and so does the file.
// - Test pattern (made inside the broadcaster's ffmpeg): that ffmpeg writes its encoded output twice
//   through the tee muxer, to the ingest and to a Matroska file (args.ts). A reconnect starts a new
//   ffmpeg, hence a new part; a clean stop joins the parts.
// Matroska written as it goes plays after a crash. A clean stop remuxes to MP4 (-c copy); when the codecs
// cannot go into MP4 (VP8), the .mkv is kept. A full disk stops the file with a named error and never
// touches the broadcast. A small index in the app data folder remembers each file for the sessions list.
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
import { rm, statfs, writeFile } from 'node:fs/promises'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'
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

const clock = (s: number): string =>
  `${Math.floor(s / 60)}:${String(Math.floor(s % 60)).padStart(2, '0')}`

export class LocalRecordings {
  private readonly indexFile: string
  private entries: LocalRecordingView[]
  private readonly now: () => number

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
  begin(run: { runId: string; streamId: string; streamName: string }): LocalRecording {
    const folder = this.folder()
    mkdirSync(folder, { recursive: true })
    const startedAt = this.now()
    const base = uniqueBase(
      folder,
      recordingFileName(run.streamName, startedAt).replace(/\.mp4$/, '')
    )
    const entry: LocalRecordingView = {
      id: run.runId,
      runId: run.runId,
      streamId: run.streamId,
      streamName: run.streamName,
      startedAt,
      file: join(folder, `${base}.mkv`),
      state: 'recording'
    }
    this.entries.push(entry)
    this.save()
    this.o.emit?.({ ...entry })
    return new LocalRecording(this, entry, folder, base)
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

  private load(): LocalRecordingView[] {
    try {
      const parsed = JSON.parse(readFileSync(this.indexFile, 'utf8')) as unknown
      if (!Array.isArray(parsed)) return []
      const list = parsed.filter(
        (e): e is LocalRecordingView =>
          typeof e === 'object' && e !== null && typeof (e as LocalRecordingView).file === 'string'
      )
      // Still "recording" from a run before: the app closed without a word. Its .mkv plays.
      let changed = false
      for (const e of list)
        if (e.state === 'recording') {
          e.state = 'interrupted'
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

  private writeIndex(list: LocalRecordingView[]): void {
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
    private readonly entry: LocalRecordingView,
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

  /** The run ended in order: close the file and remux to MP4 (kept as .mkv when MP4 cannot hold it). */
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
    const mp4 = join(this.folder, `${this.base}.mp4`)
    const ok = await remuxToMp4(this.all.ffmpeg, inputs, mp4, this.folder)
    if (ok) {
      for (const f of inputs) await rm(f, { force: true })
      this.entry.file = mp4
      delete this.entry.moreFiles
    } else {
      await rm(mp4, { force: true })
      this.all.log(`local recording: kept as Matroska (${this.entry.file}): MP4 cannot hold it`)
    }
    this.entry.state = 'saved'
    this.all.changed(this.entry)
  }
}

/** ffmpeg -c copy into MP4 (parts joined by the concat demuxer). False when MP4 cannot hold the codecs. */
export async function remuxToMp4(
  ffmpeg: string,
  inputs: string[],
  mp4: string,
  tmpDir: string
): Promise<boolean> {
  let list: string | undefined
  const input: string[] = []
  if (inputs.length > 1) {
    list = join(tmpDir, `.onair-concat-${process.pid}-${Date.now()}.txt`)
    await writeFile(list, inputs.map((f) => `file '${f.replace(/'/g, "'\\''")}'\n`).join(''))
    input.push('-f', 'concat', '-safe', '0', '-i', list)
  } else input.push('-i', inputs[0]!)
  const r = await runChild(
    ffmpeg,
    [
      '-hide_banner',
      '-nostdin',
      '-loglevel',
      'error',
      // MediaRecorder's Matroska may lack timestamps in places; a remux needs them.
      '-fflags',
      '+genpts',
      ...input,
      '-map',
      '0',
      '-c',
      'copy',
      '-movflags',
      '+faststart',
      '-f',
      'mp4',
      '-y',
      mp4
    ],
    { timeoutMs: 10 * 60_000 }
  )
  if (list) await rm(list, { force: true })
  return r.code === 0 && !r.error
}
