// Every upload of the app, kept current by the upload:progress event, and the recording checks of
// the sessions that have a local copy (what the service recorded against the copy).
import { useEffect, useState } from 'react'
import type { SessionView } from '../../../../shared/contract'
import type { RecordingCheck, UploadView } from '../../../../shared/uploads'
import { useApi } from '../../lib/api'

export function useUploads(): UploadView[] {
  const api = useApi()
  const [list, setList] = useState<UploadView[]>([])
  useEffect(() => {
    let live = true
    const put = (v: UploadView): void =>
      setList((l) =>
        [...l.filter((x) => x.id !== v.id), v].sort((a, b) => a.startedAt - b.startedAt)
      )
    const off = api.on('upload:progress', put)
    void api.listUploads().then((r) => {
      if (live && r.ok) setList((l) => (l.length === 0 ? r.value : l))
    })
    return () => {
      live = false
      off()
    }
  }, [api])
  return list
}

/** A session's newest upload. */
export const uploadOf = (list: UploadView[], sessionId: string): UploadView | undefined =>
  [...list].reverse().find((u) => u.sessionId === sessionId)

/** At most this many sessions are checked (the newest with a finished local copy). */
const MAX_CHECKS = 50

/** What can change a check's answer: the copy's length and the recording's status. */
const checkKey = (s: SessionView): string =>
  `${s.id}:${s.localRecording?.durationSec ?? ''}:${s.recordingStatus ?? ''}`

/** Checks already answered, kept across the list's re-renders and screens. */
const answered = new Map<string, RecordingCheck>()

/** The recording checks of the sessions with a finished local copy, by session id. */
export function useRecordingChecks(sessions: SessionView[]): Map<string, RecordingCheck> {
  const api = useApi()
  const [, setTick] = useState(0)
  const wanted = sessions
    .filter(
      (s) => s.localRecording?.durationSec !== undefined && s.localRecording.state !== 'recording'
    )
    .slice(0, MAX_CHECKS)
  const keys = wanted.map(checkKey).join(',')
  useEffect(() => {
    let live = true
    for (const s of wanted) {
      const key = checkKey(s)
      if (answered.has(key)) continue
      void api.checkRecording(s.id).then((r) => {
        if (!r.ok) return
        answered.set(key, r.value)
        if (live) setTick((n) => n + 1)
      })
    }
    return () => {
      live = false
    }
    // `keys` stands for `wanted`: the same sessions in the same states need no new checks.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [api, keys])
  const out = new Map<string, RecordingCheck>()
  for (const s of wanted) {
    const c = answered.get(checkKey(s))
    if (c) out.set(s.id, c)
  }
  return out
}
