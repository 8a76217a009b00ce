// Every upload of the app, kept current by the upload:progress event (progress comes several times
// a second; the list is small).
import { useEffect, useState } from 'react'
import type { UploadView } from '../../../../shared/uploads'
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
