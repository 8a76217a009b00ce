// Viewer counts (viewersNow): how many watch a stream now, as its service counts them, and the most
// seen during Onair's run on it (this process only: a new run starts the peak again).
import type { LiveStateEvent, OnairCalls, ViewersUnavailable } from '../../shared/contract'
import { isRunning } from '../../shared/live-state'
import { AppFailure } from '../../shared/result'
import type { ApiClient } from './api-client'

export interface ViewerCallsOptions {
  client: () => Promise<ApiClient>
  /** Onair's live run now, if any (Broadcaster.status). */
  run: () => LiveStateEvent | null
}

export function viewerCalls(o: ViewerCallsOptions): Pick<OnairCalls, 'viewersNow'> {
  /** The most viewers read per stream during Onair's last run on it. */
  const peaks = new Map<string, { runId: string; peak: number }>()
  return {
    async viewersNow(streamId, playbackId) {
      // The peak belongs to Onair's run on this stream: a new run starts it again.
      const run = o.run()
      const onAir = run?.streamId === streamId && isRunning(run.state) ? run.runId : undefined
      let now: number | null = null
      let unavailable: ViewersUnavailable | undefined
      try {
        now = await (await o.client()).viewersNow(playbackId)
        if (now === null) unavailable = { kind: 'not-counted' }
      } catch (e) {
        if (!(e instanceof AppFailure)) throw e
        unavailable =
          e.error.status === 403
            ? { kind: 'key-refused' }
            : { kind: 'failed', message: e.error.message }
      }
      const kept = peaks.get(streamId)
      if (onAir && now !== null) {
        const peak = kept?.runId === onAir ? Math.max(kept.peak, now) : now
        peaks.set(streamId, { runId: onAir, peak })
      }
      return {
        now,
        peak: peaks.get(streamId)?.peak ?? null,
        ...(unavailable ? { unavailable } : {})
      }
    }
  }
}
