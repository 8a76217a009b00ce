// The webhook events of live runs, as Livepeer sends them: stream.started and stream.idle (the
// stream's isActive turning), recording.ready, and each target's multistream.connected, .error and
// .disconnected, each sent once per change.
import type { Forwarder } from '../forwarder'
import type { SessionRow } from '../session-store'
import type { StreamRow } from '../stream-store'
import type { EmitEvent, StudioEventName } from '../webhooks'
import type { Run } from './run'

export class LiveEvents {
  /** The last multistream event each forwarder sent (connected or error), so each is sent once. */
  private readonly targetEvents = new WeakMap<Forwarder, StudioEventName>()

  constructor(private readonly emit: EmitEvent | undefined) {}

  /** The stream went active (a resume keeps it active: no new event). */
  started(stream: StreamRow): void {
    this.emit?.({ event: 'stream.started', userId: stream.userId, streamId: stream.id })
  }

  /** The stream went idle (isActive false), then its recording is ready, when it is. */
  ended(s: SessionRow, status: 'ready' | 'failed' | null): void {
    this.emit?.({ event: 'stream.idle', userId: s.userId, streamId: s.parentId })
    if (status === 'ready') this.recordingReady(s)
  }

  recordingReady(s: SessionRow): void {
    this.emit?.({
      event: 'recording.ready',
      userId: s.userId,
      streamId: s.parentId,
      sessionId: s.id
    })
  }

  /** A forwarder went live or began retrying: connected, or error (once per streak). */
  targetChanged(run: Run, f: Forwarder): void {
    if (f.state === 'live') this.target(run, f, 'multistream.connected')
    else if (f.state === 'retrying') this.target(run, f, 'multistream.error')
  }

  /** A target taken off a live stream (removed, disabled, changed): its receivers hear it is gone. */
  targetRemoved(run: Run, f: Forwarder): void {
    if (this.targetEvents.has(f)) this.target(run, f, 'multistream.disconnected')
  }

  /** Sends a target's multistream event unless it was the last one sent for this forwarder. */
  private target(run: Run, f: Forwarder, event: StudioEventName): void {
    if (this.targetEvents.get(f) === event) return
    this.targetEvents.set(f, event)
    const t = f.target
    this.emit?.({
      event,
      userId: run.stream.userId,
      streamId: run.stream.id,
      sessionId: run.session.id,
      payload: { target: { id: t.targetId, name: t.name, profile: t.profile } }
    })
  }
}
