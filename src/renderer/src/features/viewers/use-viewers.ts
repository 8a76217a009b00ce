// Who is watching (#20): the stream's viewers now, read every VIEWERS_POLL_MS while `on`, and the
// peak of Onair's last run on it (kept by the core).
import { useEffect, useState } from 'react'
import type { ViewersView } from '../../../../shared/contract'
import { useApi } from '../../lib/api'
import { useStream } from '../../lib/use-stream'

/** Livepeer's realtime views move every few seconds; 7 s keeps the bar fresh without chatter. */
export const VIEWERS_POLL_MS = 7000

export function useViewers(streamId: string, on: boolean): ViewersView | null {
  const api = useApi()
  const playbackId = useStream(streamId).value?.playbackId
  const [view, setView] = useState<ViewersView | null>(null)
  useEffect(() => {
    if (!playbackId) return
    let alive = true
    const read = (): void =>
      void api.viewersNow(streamId, playbackId).then((r) => {
        if (alive && r.ok) setView(r.value)
      })
    read()
    if (!on) return () => void (alive = false)
    const t = setInterval(read, VIEWERS_POLL_MS)
    return () => {
      alive = false
      clearInterval(t)
    }
  }, [api, streamId, playbackId, on])
  return view
}
