// Live runs: a publish makes (or, inside the resume window, continues) a session; each publish
// starts a run; a clean stop finalizes at once, a dropped socket after the resume window, and a
// finalize that fails (a full disk) is tried again until it is written. This file holds the
// sessions and runs; the rest of a live run is in live/, one job a file:
// - live/run.ts: a run's state (Run), the options they share (LiveOptions), a new run;
// - live/auth.ts: publish auth, which stream keys may go live (RTMP and WHIP alike);
// - live/start-run.ts: a publish's ffmpegs (the source recorder and the ladder, each supervised)
//   and the live master playlist;
// - live/run-health.ts: health aggregation, the run's conditions from its ladder and targets;
// - live/targets.ts: multistream reconcile, the run's forwarders following its stream's targets;
// - live/events.ts: the webhook events (stream.started/idle, recording.ready, multistream.*);
// - live/finish.ts: the recording written (or the live media removed) when a session ends;
// - live/recovery.ts: crash recovery, the sessions a killed process left open.
import { randomUUID } from 'node:crypto'
import type { LiveControl, LiveRun } from './context'
import type { HealthView } from './health'
import type { IngestHooks, Publisher } from './ingest'
import { runDir, SOURCE_DIR } from './recordings'
import { insertSession, type SessionRow } from './session-store'
import { getStreamByKey, setActive } from './stream-store'
import { refusePublish } from './live/auth'
import { LiveEvents } from './live/events'
import { finishRecording } from './live/finish'
import { recoverOpenSessions } from './live/recovery'
import { newRun, runToken, sleep, type LiveOptions, type Run } from './live/run'
import { HealthVerdicts, runHealth } from './live/run-health'
import { startRun } from './live/start-run'
import { RunTargets } from './live/targets'

export type { LiveOptions } from './live/run'

/**
 * A finalize that failed (a full disk: the store cannot close the session) is tried again after
 * this, doubling each time, at most FINALIZE_RETRY_CAP_MS apart, until it is written: the stream
 * then ends and its session is ready or failed within seconds of space coming back.
 */
const FINALIZE_RETRY_MS = 1000
const FINALIZE_RETRY_CAP_MS = 10_000

export class LiveManager implements LiveControl, IngestHooks {
  private readonly runs = new Map<string, Run>()
  /** Runs whose finalize failed and is being tried again (retryFinalize). */
  private readonly unfinished = new Set<Run>()
  /** The studio is stopping: a failed finalize is left to the next start's recover(). */
  private closing = false
  private readonly verdicts = new HealthVerdicts()
  private readonly events: LiveEvents
  private readonly targets: RunTargets

  constructor(private readonly o: LiveOptions) {
    this.events = new LiveEvents(o.emit)
    this.targets = new RunTargets(o, this.events)
  }

  authorize(streamKey: string): string | null {
    return refusePublish(this.o.db, streamKey)
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
      run = newRun(stream, session, { run: 0, priorSeconds: 0, publishing: true })
      this.runs.set(stream.id, run)
      this.o.log(`live: stream ${stream.id} started session ${session.id}`)
    }
    setActive(this.o.db, stream.id, true, Date.now())
    // isActive turned true (a resume keeps the stream active: no new event).
    if (!resumed) this.events.started(stream)
    const r = run
    const previous = r.starting ?? Promise.resolve()
    r.starting = previous
      .then(() => startRun(this.o, r, p, (run) => this.targets.reconcile(run)))
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
    this.targets.stopAll(run)
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
        this.targets.reconcile(r)
      } catch (err) {
        // A target never fails the session: the next change or run tries again.
        this.o.log(
          `multistream: targets of session ${r.session.id} not updated: ${(err as Error).message}`
        )
      }
    }
  }

  /** The stream's health while it is live (live/run-health.ts); undefined when it is not. */
  healthStatus(streamId: string): HealthView | undefined {
    const r = this.runs.get(streamId)
    return r && runHealth(r, () => this.targets.enabled(r))
  }

  /** GET /data/stream/{id}/health: the conditions in livepeer-data's shape. */
  healthReport(streamId: string): Record<string, unknown> {
    return this.verdicts.report(streamId, this.healthStatus(streamId))
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
   * A previous process was killed: the sessions it left open resume or are finalized
   * (live/recovery.ts). Returns how many were finalized.
   */
  recover(): Promise<number> {
    return recoverOpenSessions(this.o, this.events, (run, leftMs) => {
      run.resumeTimer = setTimeout(() => void this.finalize(run), leftMs)
      this.runs.set(run.stream.id, run)
    })
  }

  private finalize(run: Run): Promise<void> {
    run.finalizing ??= (async () => {
      clearTimeout(run.resumeTimer)
      if (this.runs.get(run.stream.id) === run) this.runs.delete(run.stream.id)
      await run.starting
      this.targets.stopAll(run)
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
      const status = await finishRecording(this.o, run.session, run.priorSeconds)
      const idle = !this.runs.has(run.stream.id)
      if (idle) setActive(this.o.db, run.stream.id, false, Date.now())
      this.o.log(`live: session ${run.session.id} finished`)
      if (idle) this.events.ended(run.session, status)
      else if (status === 'ready') this.events.recordingReady(run.session)
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
}
