// Multistream reconcile: a live run's forwarders follow its stream's targets. Which targets are
// wanted (those that exist and are enabled, with the rendition each asks for), and the forwarders
// started and stopped to match, as Livepeer refreshes a live stream on a multistream change.
import { join } from 'node:path'
import { Forwarder, type ForwardInput, type ForwardTarget } from '../forwarder'
import { getOwnTargets, type TargetRow } from '../multistream-store'
import { getOwnStream } from '../stream-store'
import type { LiveEvents } from './events'
import type { LiveOptions, Run } from './run'

/** A target of the stream that exists and is enabled, with the stream's reference to it. */
export interface EnabledTarget {
  ref: { profile: string; videoOnly?: unknown }
  row: TargetRow
}

/** A forwarder is replaced when any of these change (a new name is applied in place). */
const forwardKey = (t: ForwardTarget): string =>
  JSON.stringify([t.targetId, t.profile, t.videoOnly, t.url])

export class RunTargets {
  constructor(
    private readonly o: LiveOptions,
    private readonly events: LiveEvents
  ) {}

  /** The stream's targets that exist and are enabled, with the stream's reference to each. */
  enabled(run: Run): EnabledTarget[] {
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

  /** Starts the forwarders the run lacks and stops those no longer wanted; the rest keep running. */
  reconcile(run: Run): void {
    if (!run.publishing || run.finalizing || !run.media) return
    const wanted = this.wanted(run)
    for (const [key, f] of run.forwarders) {
      const w = wanted.get(key)
      if (w) {
        if (w.target.name !== f.target.name) f.rename(w.target.name)
        continue
      }
      run.forwarders.delete(key)
      this.events.targetRemoved(run, f)
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
        onChange: () => this.events.targetChanged(run, f)
      })
      run.forwarders.set(key, f)
      f.start()
    }
  }

  /** The run's media has ended: every forwarder stops (finalize waits for run.stopping). */
  stopAll(run: Run): void {
    run.media = undefined
    for (const f of run.forwarders.values()) this.trackStop(run, f.stop())
    run.forwarders.clear()
  }

  /** What the run's forwarders should be now: the stream's targets that exist and are enabled. */
  private wanted(run: Run): Map<string, { target: ForwardTarget; input: ForwardInput }> {
    const wanted = new Map<string, { target: ForwardTarget; input: ForwardInput }>()
    const media = run.media
    if (!media) return wanted
    for (const { ref, row } of this.enabled(run)) {
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

  private trackStop(run: Run, p: Promise<void>): void {
    const tracked = p.catch(() => undefined).finally(() => run.stopping.delete(tracked))
    run.stopping.add(tracked)
  }
}
