// The automatic upload's switch (#35), above the sessions: when on, main uploads a broadcast's full
// local copy by itself once the service's recording of it is final and missing, failed or short.
// Off unless the creator turns it on; kept in the settings (getUploadSettings / setUploadSettings).
import { useEffect, useState, type ReactNode } from 'react'
import type { AppError } from '../../../../shared/result'
import { useApi } from '../../lib/api'

export function AutoUploadSwitch({ onError }: { onError: (e: AppError) => void }): ReactNode {
  const api = useApi()
  const [on, setOn] = useState<boolean | undefined>(undefined)
  useEffect(() => {
    let live = true
    void api.getUploadSettings().then((r) => {
      if (!live) return
      if (r.ok) setOn(r.value.autoUploadFullCopy)
      else onError(r.error)
    })
    return () => {
      live = false
    }
  }, [api, onError])
  return (
    <label
      className="auto-upload"
      data-testid="auto-upload"
      title="Once the service has finished its recording of a broadcast, Onair compares it with the copy on this computer"
    >
      <input
        type="checkbox"
        data-testid="auto-upload-switch"
        checked={on ?? false}
        disabled={on === undefined}
        onChange={(e) => {
          const want = e.currentTarget.checked
          setOn(want)
          void api.setUploadSettings({ autoUploadFullCopy: want }).then((r) => {
            if (r.ok) setOn(r.value.autoUploadFullCopy)
            else {
              setOn(!want)
              onError(r.error)
            }
          })
        }}
      />
      Upload the full copy by itself when the service&apos;s recording is missing or short
    </label>
  )
}
