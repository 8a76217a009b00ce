import { useMemo, type ReactNode } from 'react'
import type { SessionView } from '../../../../shared/contract'
import { useApi } from '../../lib/api'
import type { Navigate } from '../../lib/route'
import { useResult } from '../../lib/use-result'
import { useLiveRun } from '../../lib/live-run'
import { SessionsList } from './SessionsList'
import { RecordingsList } from './RecordingsList'

/** Every session of the account, newest first. */
export function SessionsScreen({
  onPlay,
  onPlayAsset,
  onWatch
}: {
  onPlay: (s: SessionView) => void
  /** Plays an uploaded video (the service's asset) in the player. */
  onPlayAsset?: (assetId: string, name: string) => void
  onWatch: (streamId: string) => void
  navigate: Navigate
}): ReactNode {
  const api = useApi()
  const live = useLiveRun()
  // Stream names make the rows readable; a failure here only costs the names, not the list.
  const streams = useResult(() => api.listStreams({ limit: 100 }), [api])
  const names = useMemo(
    () => new Map((streams.value?.items ?? []).map((s) => [s.id, s.name])),
    [streams.value]
  )
  return (
    <section className="screen sessions-screen" aria-labelledby="sessions-title">
      <h1 id="sessions-title">Sessions</h1>
      <RecordingsList />
      <SessionsList
        onPlay={onPlay}
        onPlayAsset={onPlayAsset}
        onWatch={onWatch}
        streamNames={names}
        refreshKey={live.run?.state}
      />
    </section>
  )
}
