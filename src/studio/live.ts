// Live runs: a publish makes (or, inside the resume window, continues) a session; each publish
// starts a transcoder run; a clean stop finalizes at once, a dropped socket after the resume
// window. Also finalizes what a killed process left open.
import { randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import type { LiveControl } from './context'
import type { Db } from './db'
import { Forwarder, type ForwardInput, type ForwardTarget } from './forwarder'
import type { Ingest, IngestHooks, Publisher } from './ingest'
import { getOwnTargets } from './multistream-store'
import { isStartingIssue } from '../shared/destinations'
import {
  assembleRecording,
  type RenditionInfo,
  makeMp4,
  removeSessionMedia,
  runDir,
  sessionDir,
  writeRunMaster,
  writeRunRenditions
} from './recordings'
import {
  finishSession,
  insertSession,
  listOpenSessions,
  setRuns,
  updateProgress,
  type SessionRow
} from './session-store'
import {
  deactivateAll,
  getOwnStream,
  getStreamByKey,
  setActive,
  setStreamDuration,
  type StreamRow
} from './stream-store'
import {
  ladderArgs,
  ladderRenditions,
  sourceArgs,
  sourceRendition,
  startTranscoder,
  type RunningTranscoder,
  type SourceInfo
} from './transcoder'

interface Run {
  stream: StreamRow
  session: SessionRow
  run: number
  priorSeconds: number
  lastProgress: number
  publishing: boolean
  terminated: boolean
  transcoder?: RunningTranscoder
  starting?: Promise<void>
  resumeTimer?: NodeJS.Timeout
  finalizing?: Promise<void>
  /** This run's multistream forwarders, by forwardKey(). */
  forwarders: Map<string, Forwarder>
  /** Forwarders being stopped (finalize waits for them). */
  stopping: Set<Promise<void>>
  /** Where forwarders read this run's media; set once its transcoder runs, cleared at unpublish. */
  media?: { pullUrl: string; dir: string }
}

/** A forwarder is replaced when any of these change (a new name is applied in place). */
const forwardKey = (t: ForwardTarget): string =>
  JSON.stringify([t.targetId, t.profile, t.videoOnly, t.url])

export interface LiveOptions {
  db: Db
  dataDir: string
  ffmpeg: string
  resumeWindowMs: number
  log: (line: string) => void
  ingest: () => Ingest
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

export class LiveManager implements LiveControl, IngestHooks {
  private readonly runs = new Map<string, Run>()

  constructor(private readonly o: LiveOptions) {}

  authorize(streamKey: string): string | null {
    const s = getStreamByKey(this.o.db, streamKey)
    if (!s) return 'unknown stream key'
    if (s.deleted) return 'the stream was deleted'
    if (s.doc.suspended) return 'the stream is suspended'
    return null
  }

  onPublish(p: Publisher): void {
    const stream = getStreamByKey(this.o.db, p.streamKey)
    if (!stream) return
    let run = this.runs.get(stream.id)
    if (run && !run.publishing && !run.finalizing) {
      // Back inside the resume window: same session, next run.
      clearTimeout(run.resumeTimer)
      run.resumeTimer = undefined
      run.publishing = true
      run.run += 1
      this.o.log(`live: stream ${stream.id} resumed session ${run.session.id} (run ${run.run})`)
    } else {
      const now = Date.now()
      const session: SessionRow = {
        id: randomUUID(),
        userId: stream.userId,
        parentId: stream.id,
        playbackId: stream.playbackId,
        name: stream.doc.name,
        createdAt: now,
        lastSeen: now,
        record: stream.doc.record,
        recordingStatus: stream.doc.record ? 'waiting' : null,
        duration: 0,
        profiles: stream.doc.profiles,
        runs: 0,
        endedAt: null,
        hasMp4: false
      }
      insertSession(this.o.db, session)
      run = {
        stream,
        session,
        run: 0,
        priorSeconds: 0,
        lastProgress: 0,
        publishing: true,
        terminated: false,
        forwarders: new Map(),
        stopping: new Set()
      }
      this.runs.set(stream.id, run)
      this.o.log(`live: stream ${stream.id} started session ${session.id}`)
    }
    setActive(this.o.db, stream.id, true, Date.now())
    const r = run
    const previous = r.starting ?? Promise.resolve()
    r.starting = previous
      .then(() => this.startRun(r, p))
      .catch((err: Error) => {
        this.o.log(`live: run of session ${r.session.id} could not start: ${err.message}`)
      })
  }

  onUnpublish(streamKey: string, clean: boolean): void {
    const run = [...this.runs.values()].find((r) => r.stream.streamKey === streamKey)
    if (!run || run.finalizing) return
    run.publishing = false
    // The run's media has ended: its targets are pushed again by the next run (a resume), and its
    // transcoder ends with its input (no restart).
    this.stopForwarders(run)
    run.transcoder?.endWithInput()
    if (clean || run.terminated) {
      void this.finalize(run)
      return
    }
    this.o.log(
      `live: session ${run.session.id} dropped; waiting ${this.o.resumeWindowMs} ms for a resume`
    )
    run.resumeTimer = setTimeout(() => void this.finalize(run), this.o.resumeWindowMs)
  }

  async terminate(streamId: string): Promise<void> {
    const run = this.runs.get(streamId)
    if (!run) return
    run.terminated = true
    this.o.ingest().drop(run.stream.streamKey)
    await this.finalize(run)
  }

  /**
   * The targets of a live stream changed (its list, or a target's URL, name or disabled flag):
   * start and stop only the forwarders concerned, as Livepeer refreshes a live stream on a
   * multistream change. `streamId` undefined: every live stream of the user.
   */
  multistreamChanged(userId: string, streamId?: string): void {
    for (const r of this.runs.values()) {
      if (r.stream.userId !== userId || (streamId && r.stream.id !== streamId)) continue
      try {
        this.reconcile(r)
      } catch (err) {
        // A target never fails the session: the next change or run tries again.
        this.o.log(
          `multistream: targets of session ${r.session.id} not updated: ${(err as Error).message}`
        )
      }
    }
  }

  /**
   * The stream's health while it is live: healthy unless a target is retrying (one issue per
   * target; a target still starting has its line too, which is no trouble: Livepeer's optional
   * Multistreaming condition is unknown, not false, until a target connects). undefined when it is not live (the API then says null, as the reference does).
   */
  health(streamId: string): { isHealthy: boolean; issues: string[] } | undefined {
    const r = this.runs.get(streamId)
    if (!r || !r.publishing || r.finalizing) return undefined
    const issues = [
      ...new Set([...r.forwarders.values()].map((f) => f.issue()).filter((i) => i !== undefined))
    ]
    return { isHealthy: issues.every(isStartingIssue), issues }
  }

  liveDir(playbackId: string): string | undefined {
    for (const r of this.runs.values()) {
      if (r.stream.playbackId === playbackId) return runDir(this.o.dataDir, r.session.id, r.run)
    }
    return undefined
  }

  /** Finalizes every open run now (studio stopping). */
  async stopAll(): Promise<void> {
    const all = [...this.runs.values()]
    for (const r of all) r.terminated = true
    await Promise.all(all.map((r) => this.finalize(r)))
  }

  /**
   * A previous process was killed. A session it left open that was live less than the resume window
   * ago waits for its publisher as after a drop (a broadcaster reconnecting to the restarted studio
   * continues the same session and recording); the rest are finalized from what reached the disk.
   * Returns how many were finalized.
   */
  async recover(): Promise<number> {
    const open = listOpenSessions(this.o.db)
    deactivateAll(this.o.db)
    const now = Date.now()
    let finalized = 0
    for (const s of open) {
      const stream = getOwnStream(this.o.db, s.userId, s.parentId)
      const left = this.o.resumeWindowMs - (now - s.lastSeen)
      if (stream && !stream.deleted && !stream.doc.suspended && left > 0) {
        const run: Run = {
          stream,
          session: s,
          // The last run started; a publisher coming back starts the next one.
          run: s.runs - 1,
          priorSeconds: s.duration,
          lastProgress: 0,
          publishing: false,
          terminated: false,
          forwarders: new Map(),
          stopping: new Set()
        }
        run.resumeTimer = setTimeout(() => void this.finalize(run), left)
        this.runs.set(stream.id, run)
        setActive(this.o.db, stream.id, true, now)
        this.o.log(
          `live: session ${s.id} was live when the studio stopped; waiting ${left} ms for a resume`
        )
        continue
      }
      await this.finish(s, 0)
      finalized++
    }
    return finalized
  }

  private async waitForMeta(p: Publisher, ms: number): Promise<void> {
    const until = Date.now() + ms
    while (p.meta().width === 0 && Date.now() < until) await sleep(50)
  }

  private async startRun(run: Run, p: Publisher): Promise<void> {
    // The previous run's ffmpeg must be gone: its media time is the base of this run's.
    if (run.transcoder) {
      await run.transcoder.done
      run.priorSeconds += run.lastProgress
      run.lastProgress = 0
      run.transcoder = undefined
    }
    await this.waitForMeta(p, 1500)
    if (!run.publishing || run.finalizing) return
    const m = p.meta()
    const src: SourceInfo = {
      // No metadata at all: assume the usual audio + H.264 (what Onair and OBS send).
      hasAudio: m.width === 0 ? true : m.audioCodec !== 0,
      videoIsH264: m.videoCodec === 7 || m.videoCodec === 0,
      audioIsAac: m.audioCodec === 10,
      width: m.width,
      height: m.height,
      videoBitrate: m.videoKbps * 1000
    }
    const profiles = run.session.profiles
    const renditions =
      profiles.length > 0 ? ladderRenditions(profiles, src.hasAudio) : [sourceRendition(src)]
    const input = this.o.ingest().pullUrl(p.streamKey)
    let stopPoll = (): void => undefined
    run.transcoder = startTranscoder({
      ffmpeg: this.o.ffmpeg,
      // A restart after a crash continues the session as a new run (as a resume does): its own
      // directory and playlists, its media time added after the crashed run's.
      prepare: async (n) => {
        if (n > 1) {
          if (!run.publishing || run.finalizing) throw new Error('the publish has ended')
          this.stopForwarders(run)
          run.priorSeconds += run.lastProgress
          run.lastProgress = 0
          run.run += 1
          this.o.log(`live: transcoder of session ${run.session.id} restarts as run ${run.run}`)
        }
        const dir = runDir(this.o.dataDir, run.session.id, run.run)
        await mkdir(dir, { recursive: true })
        await writeRunRenditions(dir, renditions)
        setRuns(this.o.db, run.session.id, run.run + 1)
        const args =
          profiles.length > 0 ? ladderArgs(input, dir, profiles, src) : sourceArgs(input, dir, src)
        return { args, renditions, out: dir }
      },
      restartable: () => run.publishing && !run.finalizing,
      onStart: (_n, attempt) => {
        run.media = { pullUrl: input, dir: attempt.out }
        try {
          this.reconcile(run)
        } catch (err) {
          this.o.log(
            `multistream: targets of session ${run.session.id} not started: ${(err as Error).message}`
          )
        }
        stopPoll = this.pollMaster(attempt.out, renditions)
      },
      onProgress: (sec) => {
        run.lastProgress = sec
        // ffmpeg's last progress lines can arrive after the run was finalized (and the store closed).
        if (run.finalizing) return
        const now = Date.now()
        try {
          updateProgress(this.o.db, run.session.id, run.priorSeconds + sec, now)
          setStreamDuration(this.o.db, run.stream.id, run.priorSeconds + sec)
          setActive(this.o.db, run.stream.id, true, now)
        } catch (err) {
          this.o.log(
            `live: progress of session ${run.session.id} not saved: ${(err as Error).message}`
          )
        }
      },
      onExit: (exit, next) => {
        stopPoll()
        if (exit.code !== 0 && exit.code !== 255)
          this.o.log(
            `live: transcoder of session ${run.session.id} ${exit.spawnError ? `did not start: ${exit.spawnError.message}` : `exited ${exit.signal ?? exit.code}: ${exit.stderr.slice(-5).join(' | ')}`}` +
              (next ? `; restarting in ${next.delayMs} ms` : '')
          )
      }
    })
  }

  /** Writes a run's master playlist once every rendition has a playlist (a player may pick any). */
  private pollMaster(dir: string, renditions: RenditionInfo[]): () => void {
    let written = false
    const writeMaster = async (): Promise<void> => {
      if (written || !renditions.every((r) => existsSync(join(dir, r.dir, 'index.m3u8')))) return
      written = true
      await writeRunMaster(dir, renditions)
    }
    const poll = setInterval(() => void writeMaster().catch(() => undefined), 200)
    return () => {
      clearInterval(poll)
      void writeMaster().catch(() => undefined)
    }
  }

  private finalize(run: Run): Promise<void> {
    run.finalizing ??= (async () => {
      clearTimeout(run.resumeTimer)
      if (this.runs.get(run.stream.id) === run) this.runs.delete(run.stream.id)
      await run.starting
      this.stopForwarders(run)
      await Promise.all(run.stopping)
      const t = run.transcoder
      if (t) {
        // The ingest closed the pull, so ffmpeg is flushing; only a stuck one gets signalled.
        const quick = await Promise.race([t.done.then(() => true), sleep(8000).then(() => false)])
        if (!quick) await t.stop(3000)
        run.priorSeconds += run.lastProgress
        run.lastProgress = 0
      }
      await this.finish(run.session, run.priorSeconds)
      if (!this.runs.has(run.stream.id)) setActive(this.o.db, run.stream.id, false, Date.now())
      this.o.log(`live: session ${run.session.id} finished`)
    })().catch((err: Error) => this.o.log(`live: finalize failed: ${err.message}`))
    return run.finalizing
  }

  /** What the run's forwarders should be now: the stream's targets that exist and are enabled. */
  private wantedTargets(run: Run): Map<string, { target: ForwardTarget; input: ForwardInput }> {
    const wanted = new Map<string, { target: ForwardTarget; input: ForwardInput }>()
    const media = run.media
    if (!media) return wanted
    const stream = getOwnStream(this.o.db, run.stream.userId, run.stream.id)
    if (!stream || stream.doc.suspended) return wanted
    const refs = (stream.doc.multistream?.targets ?? []) as Array<{
      id?: unknown
      profile?: unknown
      videoOnly?: unknown
    }>
    const ids = refs.map((r) => r.id).filter((id): id is string => typeof id === 'string')
    const rows = getOwnTargets(this.o.db, run.stream.userId, ids)
    for (const ref of refs) {
      const row = typeof ref.id === 'string' ? rows.get(ref.id) : undefined
      if (!row || row.disabled || typeof ref.profile !== 'string') continue
      let input: ForwardInput
      if (ref.profile === 'source') input = { kind: 'rtmp', url: media.pullUrl }
      else {
        const i = run.session.profiles.findIndex((p) => p.name === ref.profile)
        if (i < 0) {
          // The stream's profiles changed after the target was added: nothing to send.
          this.o.log(
            `multistream: target ${row.id} asks for profile "${ref.profile.slice(0, 100)}", which session ${run.session.id} does not have`
          )
          continue
        }
        input = { kind: 'hls', playlist: join(media.dir, `v${i}`, 'index.m3u8') }
      }
      const target: ForwardTarget = {
        targetId: row.id,
        name: row.name,
        url: row.url,
        profile: ref.profile,
        videoOnly: ref.videoOnly === true
      }
      wanted.set(forwardKey(target), { target, input })
    }
    return wanted
  }

  /** Starts the forwarders the run lacks and stops those no longer wanted; the rest keep running. */
  private reconcile(run: Run): void {
    if (!run.publishing || run.finalizing || !run.media) return
    const wanted = this.wantedTargets(run)
    for (const [key, f] of run.forwarders) {
      const w = wanted.get(key)
      if (w) {
        if (w.target.name !== f.target.name) f.rename(w.target.name)
        continue
      }
      run.forwarders.delete(key)
      this.trackStop(run, f.stop())
    }
    for (const [key, w] of wanted) {
      if (run.forwarders.has(key)) continue
      const f = new Forwarder({
        ffmpeg: this.o.ffmpeg,
        target: w.target,
        input: w.input,
        log: (line) => this.o.log(`${line} (session ${run.session.id})`)
      })
      run.forwarders.set(key, f)
      f.start()
    }
  }

  private stopForwarders(run: Run): void {
    run.media = undefined
    for (const f of run.forwarders.values()) this.trackStop(run, f.stop())
    run.forwarders.clear()
  }

  private trackStop(run: Run, p: Promise<void>): void {
    const tracked = p.catch(() => undefined).finally(() => run.stopping.delete(tracked))
    run.stopping.add(tracked)
  }

  /**
   * Writes the recording (or removes the live media of an unrecorded session) and closes the row.
   */
  private async finish(s: SessionRow, seconds: number): Promise<void> {
    const dir = sessionDir(this.o.dataDir, s.id)
    if (!s.record) {
      await removeSessionMedia(dir)
      finishSession(this.o.db, s.id, {
        duration: seconds || s.duration,
        status: null,
        hasMp4: false
      })
      return
    }
    const assembled = await assembleRecording(dir).catch(() => ({ ok: false, duration: 0 }))
    const hasMp4 = assembled.ok ? await makeMp4(dir, this.o.ffmpeg) : false
    finishSession(this.o.db, s.id, {
      duration: assembled.ok ? assembled.duration : seconds || s.duration,
      status: assembled.ok ? 'ready' : 'failed',
      hasMp4
    })
    setStreamDurationIfKnown(this.o.db, s.parentId, assembled.ok ? assembled.duration : 0)
  }
}

function setStreamDurationIfKnown(db: Db, streamId: string, seconds: number): void {
  if (seconds > 0) setStreamDuration(db, streamId, seconds)
}
