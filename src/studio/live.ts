// Live runs: a publish makes (or, inside the resume window, continues) a session; each publish
// starts a run: the source recorder and, with profiles, the ladder, each supervised on its own; a
// clean stop finalizes at once, a dropped socket after the resume window. Also finalizes what a
// killed process left open, and reports a live run's health (health.ts).
import { randomBytes, randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import type { LiveControl, LiveRun } from './context'
import type { Db } from './db'
import { Forwarder, type ForwardInput, type ForwardTarget } from './forwarder'
import {
  ConditionState,
  healthOf,
  healthStatusToApi,
  TranscodeHealth,
  type HealthView
} from './health'
import type { Ingest, IngestHooks, Publisher } from './ingest'
import { getOwnTargets, type TargetRow } from './multistream-store'
import { isStartingIssue, startingIssue } from '../shared/destinations'
import {
  assembleRecording,
  type RenditionInfo,
  makeDownloads,
  makeMp4,
  removeSessionMedia,
  runDir,
  sessionDir,
  SOURCE_DIR,
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
import { impossibleProfiles } from '../shared/profiles'
import type { FfmpegExit } from '../node/ffmpeg/supervised'
import type { EmitEvent, StudioEventName } from './webhooks'

interface Run {
  stream: StreamRow
  session: SessionRow
  run: number
  /**
   * This run's part of its live HLS addresses (/hls/<playbackId>/<token>/...): new at every publish,
   * so no browser cache holds an earlier run's segments under an address this run uses.
   */
  token: string
  priorSeconds: number
  lastProgress: number
  publishing: boolean
  terminated: boolean
  /** The source recorder: its media time is the session's duration. */
  transcoder?: RunningTranscoder
  /** The ladder (with profiles), supervised apart: its failures cost no recorded media. */
  ladder?: RunningTranscoder
  /** The current publish's transcoding health; undefined between publishes. */
  transcodeHealth?: TranscodeHealth
  multistreamHealth: ConditionState
  starting?: Promise<void>
  resumeTimer?: NodeJS.Timeout
  finalizing?: Promise<void>
  /** Finalizes that failed so far (a full disk), and the timer of the next try. */
  finalizeFailures?: number
  retryTimer?: NodeJS.Timeout
  /** This run's multistream forwarders, by forwardKey(). */
  forwarders: Map<string, Forwarder>
  /** Forwarders being stopped (finalize waits for them). */
  stopping: Set<Promise<void>>
  /** Where forwarders read this run's media; set once its transcoder runs, cleared at unpublish. */
  media?: { pullUrl: string; dir: string }
  /**
   * Where this publish's playlists begin in the publisher's media (ms), by puller ('source',
   * 'ladder'): the ingest sends a puller the stream from its latest keyframe. The first attempt's
   * (a restart appends to the same playlists).
   */
  mediaStart?: Record<string, number>
}

/** A target of the stream that exists and is enabled, with the stream's reference to it. */
interface EnabledTarget {
  ref: { profile: string; videoOnly?: unknown }
  row: TargetRow
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
  /** Stream events for webhooks (stream.started, stream.idle, recording.ready, multistream.*). */
  emit?: EmitEvent
}

/** A run's address token: 10 hex digits, unguessable enough that runs never share one. */
const runToken = (): string => randomBytes(5).toString('hex')

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

/**
 * A finalize that failed (a full disk: the store cannot close the session) is tried again after
 * this, doubling each time, at most FINALIZE_RETRY_CAP_MS apart, until it is written: the stream
 * then ends and its session is ready or failed within seconds of space coming back.
 */
const FINALIZE_RETRY_MS = 1000
const FINALIZE_RETRY_CAP_MS = 10_000

/** A ladder whose media time has not advanced for this long, while the source's has, is hung. */
const LADDER_STALL_MS = 10_000

/** How long the live master waits for the ladder's playlists once the source has one. */
const LADDER_WAIT_MS = 6000

/** Why a ladder attempt ended, in words for the stream's issues. */
export function exitCause(exit: FfmpegExit): string {
  if (exit.spawnError) return `ffmpeg did not start: ${exit.spawnError.message}`
  if (exit.stalled) return 'it stopped making progress'
  if (exit.signal) return `killed by ${exit.signal}`
  const last = exit.stderr.filter((l) => l.trim()).pop()
  return `ffmpeg exited with code ${exit.code}${last ? `: ${last.trim().slice(0, 200)}` : ''}`
}

export class LiveManager implements LiveControl, IngestHooks {
  private readonly runs = new Map<string, Run>()
  /** Runs whose finalize failed and is being tried again (retryFinalize). */
  private readonly unfinished = new Set<Run>()
  /** The studio is stopping: a failed finalize is left to the next start's recover(). */
  private closing = false
  /** Each stream's overall verdict, kept for its probe and transition times. */
  private readonly verdicts = new Map<string, ConditionState<'Healthy'>>()
  /** The last multistream event each forwarder sent (connected or error), so each is sent once. */
  private readonly targetEvents = new WeakMap<Forwarder, StudioEventName>()

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
    const resumed = run !== undefined && !run.publishing && !run.finalizing
    if (run && resumed) {
      // Back inside the resume window: same session, next run.
      clearTimeout(run.resumeTimer)
      run.resumeTimer = undefined
      run.publishing = true
      run.run += 1
      run.token = runToken()
      run.mediaStart = undefined
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
        token: runToken(),
        priorSeconds: 0,
        lastProgress: 0,
        publishing: true,
        terminated: false,
        multistreamHealth: new ConditionState('Multistreaming'),
        forwarders: new Map(),
        stopping: new Set()
      }
      this.runs.set(stream.id, run)
      this.o.log(`live: stream ${stream.id} started session ${session.id}`)
    }
    setActive(this.o.db, stream.id, true, Date.now())
    // isActive turned true (a resume keeps the stream active: no new event).
    if (!resumed)
      this.o.emit?.({ event: 'stream.started', userId: stream.userId, streamId: stream.id })
    const r = run
    const previous = r.starting ?? Promise.resolve()
    r.starting = previous
      .then(() => this.startRun(r, p))
      .catch((err: Error) => {
        this.o.log(`live: run of session ${r.session.id} could not start: ${err.message}`)
      })
  }

  onPuller(streamKey: string, purpose: string, startMs: number | undefined): void {
    const run = [...this.runs.values()].find((r) => r.stream.streamKey === streamKey)
    if (!run || startMs === undefined) return
    run.mediaStart ??= {}
    run.mediaStart[purpose] ??= startMs
  }

  onUnpublish(streamKey: string, clean: boolean): void {
    const run = [...this.runs.values()].find((r) => r.stream.streamKey === streamKey)
    if (!run || run.finalizing) return
    run.publishing = false
    // The run's media has ended: its targets are pushed again by the next run (a resume), and its
    // transcoder ends with its input (no restart).
    this.stopForwarders(run)
    run.transcoder?.endWithInput()
    run.ladder?.endWithInput()
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
   * The stream's health while it is live, in Livepeer's conditions (health.ts): Transcoding and
   * TranscodeRealTime from the ladder, Multistreaming from the targets: false while one is retrying,
   * unknown (no trouble: the condition is optional) while there are none or all are still starting,
   * true once one is live. One issue line per target that is starting or retrying. undefined when
   * it is not live (the API then says null, as the reference does).
   */
  healthStatus(streamId: string): HealthView | undefined {
    const r = this.runs.get(streamId)
    if (!r || !r.publishing || r.finalizing) return undefined
    // A target the run has no forwarder for yet (the run waits for the publisher's metadata, up to
    // 1.5 s, before it starts any) is starting too: the stream is already active, and a target
    // with no line would read as live.
    const started = new Set([...r.forwarders.values()].map((f) => f.target.targetId))
    const waiting = this.enabledTargets(r)
      .filter(({ row }) => !started.has(row.id))
      .map(({ row }) => startingIssue({ id: row.id, name: row.name }))
    if (!r.transcodeHealth && waiting.length === 0) return undefined
    const transcodeHealth =
      r.transcodeHealth ?? new TranscodeHealth(r.session.profiles.length > 0, Date.now())
    const targetIssues = [
      ...new Set([
        ...[...r.forwarders.values()].map((f) => f.issue()).filter((i) => i !== undefined),
        ...waiting
      ])
    ]
    const retrying = targetIssues.filter((i) => !isStartingIssue(i))
    const allStarting =
      targetIssues.length === r.forwarders.size && targetIssues.every(isStartingIssue)
    const multistreaming = r.forwarders.size === 0 || allStarting ? null : retrying.length === 0
    r.multistreamHealth.set(multistreaming, Date.now())
    return healthOf(transcodeHealth, r.multistreamHealth, targetIssues)
  }

  /** GET /data/stream/{id}/health: the conditions in livepeer-data's shape. */
  healthReport(streamId: string): Record<string, unknown> {
    let verdict = this.verdicts.get(streamId)
    if (!verdict) this.verdicts.set(streamId, (verdict = new ConditionState('Healthy')))
    return healthStatusToApi(streamId, this.healthStatus(streamId), verdict, Date.now())
  }

  /** isHealthy and issues as the stream object carries them: unknown conditions count as fine. */
  health(streamId: string): { isHealthy: boolean; issues: string[] } | undefined {
    const h = this.healthStatus(streamId)
    return h && { isHealthy: h.healthy !== false, issues: h.issues }
  }

  liveRun(playbackId: string): LiveRun | undefined {
    for (const r of this.runs.values()) {
      if (r.stream.playbackId === playbackId)
        return {
          dir: runDir(this.o.dataDir, r.session.id, r.run),
          token: r.token,
          // The source recorder's playlist is source/, the ladder's v0/, v1/...
          mediaStartMs: (rendition) =>
            r.mediaStart?.[rendition === SOURCE_DIR ? 'source' : 'ladder']
        }
    }
    return undefined
  }

  /**
   * Finalizes every open run now (studio stopping). A run whose finalize is being retried gets one
   * last try; if that fails too, recover() closes its session at the next start.
   */
  async stopAll(): Promise<void> {
    this.closing = true
    const all = [...this.runs.values()]
    for (const r of all) r.terminated = true
    for (const r of this.unfinished) {
      if (!r.retryTimer) continue
      clearTimeout(r.retryTimer)
      r.retryTimer = undefined
      r.finalizing = undefined
    }
    await Promise.all([...all, ...this.unfinished].map((r) => this.finalize(r)))
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
          token: runToken(),
          priorSeconds: s.duration,
          lastProgress: 0,
          publishing: false,
          terminated: false,
          multistreamHealth: new ConditionState('Multistreaming'),
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
      const status = await this.finish(s, 0)
      // The stream was live when the studio stopped: its receivers hear it went idle.
      this.ended(s, status)
      finalized++
    }
    return finalized
  }

  private async waitForMeta(p: Publisher, ms: number): Promise<void> {
    const until = Date.now() + ms
    while (p.meta().width === 0 && Date.now() < until) await sleep(50)
  }

  private async startRun(run: Run, p: Publisher): Promise<void> {
    // The previous run's ffmpegs must be gone: the source's media time is the base of this run's.
    if (run.transcoder || run.ladder) {
      await Promise.all([run.transcoder?.done, run.ladder?.done])
      run.priorSeconds += run.lastProgress
      run.lastProgress = 0
      run.transcoder = undefined
      run.ladder = undefined
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
    const source = sourceRendition(src)
    const ladder = profiles.length > 0 ? ladderRenditions(profiles, src.hasAudio) : []
    // The source first: the best rendition, and the one that is always there.
    const renditions = [source, ...ladder]
    const input = this.o.ingest().pullUrl(p.streamKey)
    // Each of our pullers names itself: the ingest says where its media begins (onPuller).
    const sourceInput = this.o.ingest().pullUrl(p.streamKey, 'source')
    const ladderInput = this.o.ingest().pullUrl(p.streamKey, 'ladder')
    const dir = runDir(this.o.dataDir, run.session.id, run.run)
    await mkdir(dir, { recursive: true })
    await writeRunRenditions(dir, renditions)
    setRuns(this.o.db, run.session.id, run.run + 1)
    const health = new TranscodeHealth(ladder.length > 0, Date.now())
    run.transcodeHealth = health
    const live = (): boolean => run.publishing && !run.finalizing
    const log = (what: string, exit: FfmpegExit, next?: { delayMs: number }): void => {
      if (exit.code !== 0 && exit.code !== 255)
        this.o.log(
          `live: ${what} of session ${run.session.id} ${exit.spawnError ? `did not start: ${exit.spawnError.message}` : `exited ${exit.signal ?? exit.code}: ${exit.stderr.slice(-5).join(' | ')}`}` +
            (next ? `; restarting in ${next.delayMs} ms` : '')
        )
    }

    // The source recorder: copies what arrives, so the recording never depends on the ladder. A
    // restart after a crash goes on in the same playlist (a discontinuity marks the join).
    const stopPoll = this.pollMaster(dir, renditions, health)
    let sourceAdvanced = Date.now()
    run.media = { pullUrl: input, dir }
    try {
      this.reconcile(run)
    } catch (err) {
      this.o.log(
        `multistream: targets of session ${run.session.id} not started: ${(err as Error).message}`
      )
    }
    run.transcoder = startTranscoder({
      ffmpeg: this.o.ffmpeg,
      prepare: async (n) => {
        if (n > 1) {
          if (!live()) throw new Error('the publish has ended')
          run.priorSeconds += run.lastProgress
          run.lastProgress = 0
          health.sourceAttempt()
          this.o.log(`live: source recorder of session ${run.session.id} restarts (attempt ${n})`)
        }
        return { args: sourceArgs(sourceInput, dir, src, n > 1), renditions: [source], out: dir }
      },
      restartable: live,
      onProgress: (sec) => {
        if (sec > run.lastProgress) sourceAdvanced = Date.now()
        run.lastProgress = sec
        health.sourceProgress(Date.now(), sec)
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
      onExit: (exit, next) => log('source recorder', exit, next)
    })
    void run.transcoder.done.then(stopPoll)
    if (ladder.length === 0) return

    // The ladder. Profiles no encoder can make (a stored stream from before the rule, or a
    // database edited by hand) are not tried: the transcoding has failed, with that cause.
    const impossible = impossibleProfiles(profiles)
    if (impossible.length > 0) {
      health.failed(impossible.map((i) => i.message).join('; '), Date.now())
      this.o.log(
        `live: session ${run.session.id} is not transcoded: ${impossible.map((i) => `${i.field}: ${i.message}`).join('; ')}`
      )
      return
    }
    run.ladder = startTranscoder({
      ffmpeg: this.o.ffmpeg,
      prepare: async (n) => {
        if (n > 1) {
          if (!live()) throw new Error('the publish has ended')
          this.o.log(`live: transcoder of session ${run.session.id} restarts (attempt ${n})`)
        }
        health.attempt()
        return {
          args: ladderArgs(ladderInput, dir, profiles, src, n > 1),
          renditions: ladder,
          out: dir
        }
      },
      restartable: live,
      // A ladder that fails at once may work the next time (the pull, a busy machine): the backoff
      // keeps a hopeless one cheap.
      restartNeverUp: true,
      // A ladder whose media time stops while the source's goes on has hung: killed (the cause
      // says so) and restarted. A source that is quiet itself excuses it.
      stallMs: LADDER_STALL_MS,
      stallExcused: () => Date.now() - sourceAdvanced > LADDER_STALL_MS / 3,
      onProgress: (sec) => health.ladderProgress(Date.now(), sec),
      onFlowing: () => health.flowing(Date.now()),
      onExit: (exit, next) => {
        if (!exit.stopped && exit.code !== 0 && live()) health.failed(exitCause(exit), Date.now())
        log('transcoder', exit, next)
      }
    })
  }

  /**
   * Writes a run's master playlist once the source has a playlist and the ladder has one too (or
   * has had a few seconds, or has failed: the source plays meanwhile), and again as more
   * renditions appear. Players that load it later get the whole ladder.
   */
  private pollMaster(
    dir: string,
    renditions: RenditionInfo[],
    health: TranscodeHealth
  ): () => void {
    let listed = 0
    let sourceSince: number | undefined
    const writeMaster = async (): Promise<void> => {
      const have = renditions.filter((r) => existsSync(join(dir, r.dir, 'index.m3u8')))
      if (!have.includes(renditions[0]!)) return
      sourceSince ??= Date.now()
      const waiting =
        have.length < renditions.length &&
        Date.now() - sourceSince < LADDER_WAIT_MS &&
        !health.issues().length
      if (waiting || have.length <= listed) return
      listed = have.length
      await writeRunMaster(dir, have)
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
      const ffmpegs = [run.transcoder, run.ladder].filter((t) => t !== undefined)
      await Promise.all(
        ffmpegs.map(async (t) => {
          // The ingest closed the pull, so ffmpeg is flushing; only a stuck one gets signalled.
          const quick = await Promise.race([t.done.then(() => true), sleep(8000).then(() => false)])
          if (!quick) await t.stop(3000)
        })
      )
      if (run.transcoder) {
        run.priorSeconds += run.lastProgress
        run.lastProgress = 0
      }
      const status = await this.finish(run.session, run.priorSeconds)
      const idle = !this.runs.has(run.stream.id)
      if (idle) setActive(this.o.db, run.stream.id, false, Date.now())
      this.o.log(`live: session ${run.session.id} finished`)
      if (idle) this.ended(run.session, status)
      else if (status === 'ready') this.recordingReady(run.session)
      this.unfinished.delete(run)
    })().catch((err: Error) => {
      this.o.log(`live: finalize failed: ${err.message}`)
      this.retryFinalize(run)
    })
    return run.finalizing
  }

  /** Tries a failed finalize again after a wait that doubles (FINALIZE_RETRY_MS), until it works. */
  private retryFinalize(run: Run): void {
    this.unfinished.add(run)
    if (this.closing) return
    const failures = (run.finalizeFailures ?? 0) + 1
    run.finalizeFailures = failures
    const wait = Math.min(FINALIZE_RETRY_CAP_MS, FINALIZE_RETRY_MS * 2 ** (failures - 1))
    this.o.log(`live: session ${run.session.id} is finalized again in ${wait} ms`)
    run.retryTimer = setTimeout(() => {
      run.retryTimer = undefined
      run.finalizing = undefined
      void this.finalize(run)
    }, wait)
  }

  /** The stream's targets that exist and are enabled, with the stream's reference to each. */
  private enabledTargets(run: Run): EnabledTarget[] {
    const stream = getOwnStream(this.o.db, run.stream.userId, run.stream.id)
    if (!stream || stream.doc.suspended) return []
    const refs = (stream.doc.multistream?.targets ?? []) as Array<{
      id?: unknown
      profile?: unknown
      videoOnly?: unknown
    }>
    const ids = refs.map((r) => r.id).filter((id): id is string => typeof id === 'string')
    const rows = getOwnTargets(this.o.db, run.stream.userId, ids)
    const out: EnabledTarget[] = []
    for (const ref of refs) {
      const row = typeof ref.id === 'string' ? rows.get(ref.id) : undefined
      if (!row || row.disabled || typeof ref.profile !== 'string') continue
      out.push({ ref: { profile: ref.profile, videoOnly: ref.videoOnly }, row })
    }
    return out
  }

  /** What the run's forwarders should be now: the stream's targets that exist and are enabled. */
  private wantedTargets(run: Run): Map<string, { target: ForwardTarget; input: ForwardInput }> {
    const wanted = new Map<string, { target: ForwardTarget; input: ForwardInput }>()
    const media = run.media
    if (!media) return wanted
    for (const { ref, row } of this.enabledTargets(run)) {
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
      // Taken off a live stream (removed, disabled, changed): its receivers hear it is gone.
      if (this.targetEvents.has(f)) this.targetEvent(run, f, 'multistream.disconnected')
      this.trackStop(run, f.stop())
    }
    for (const [key, w] of wanted) {
      if (run.forwarders.has(key)) continue
      const f: Forwarder = new Forwarder({
        ffmpeg: this.o.ffmpeg,
        target: w.target,
        input: w.input,
        log: (line) => this.o.log(`${line} (session ${run.session.id})`),
        // Livepeer's multistream events: connected once live, error once it retries (once per
        // streak: a retry after a retry sends nothing new).
        onChange: () => {
          if (f.state === 'live') this.targetEvent(run, f, 'multistream.connected')
          else if (f.state === 'retrying') this.targetEvent(run, f, 'multistream.error')
        }
      })
      run.forwarders.set(key, f)
      f.start()
    }
  }

  /** Sends a target's multistream event unless it was the last one sent for this forwarder. */
  private targetEvent(run: Run, f: Forwarder, event: StudioEventName): void {
    if (this.targetEvents.get(f) === event) return
    this.targetEvents.set(f, event)
    const t = f.target
    this.o.emit?.({
      event,
      userId: run.stream.userId,
      streamId: run.stream.id,
      sessionId: run.session.id,
      payload: { target: { id: t.targetId, name: t.name, profile: t.profile } }
    })
  }

  /** The stream went idle (isActive false), then its recording is ready, when it is. */
  private ended(s: SessionRow, status: 'ready' | 'failed' | null): void {
    this.o.emit?.({ event: 'stream.idle', userId: s.userId, streamId: s.parentId })
    if (status === 'ready') this.recordingReady(s)
  }

  private recordingReady(s: SessionRow): void {
    this.o.emit?.({
      event: 'recording.ready',
      userId: s.userId,
      streamId: s.parentId,
      sessionId: s.id
    })
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
  private async finish(s: SessionRow, seconds: number): Promise<'ready' | 'failed' | null> {
    const dir = sessionDir(this.o.dataDir, s.id)
    if (!s.record) {
      await removeSessionMedia(dir)
      finishSession(this.o.db, s.id, {
        duration: seconds || s.duration,
        status: null,
        hasMp4: false
      })
      return null
    }
    const assembled = await assembleRecording(dir).catch(() => ({ ok: false, duration: 0 }))
    const hasMp4 = assembled.ok ? await makeMp4(dir, this.o.ffmpeg) : false
    // Each rendition's MP4 too, for a download menu (GET /playback/{sessionId} lists them).
    if (hasMp4) await makeDownloads(dir, this.o.ffmpeg).catch(() => [])
    const status = assembled.ok ? 'ready' : 'failed'
    finishSession(this.o.db, s.id, {
      duration: assembled.ok ? assembled.duration : seconds || s.duration,
      status,
      hasMp4
    })
    setStreamDurationIfKnown(this.o.db, s.parentId, assembled.ok ? assembled.duration : 0)
    return status
  }
}

function setStreamDurationIfKnown(db: Db, streamId: string, seconds: number): void {
  if (seconds > 0) setStreamDuration(db, streamId, seconds)
}
