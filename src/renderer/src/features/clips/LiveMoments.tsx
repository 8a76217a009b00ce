// The live bar's moments (#20): "Clip the last 30 s" and "Marker", each also on a key (hotkeys).
import { useState, type ReactNode } from 'react'
import type { ClipView, MarkerView } from '../../../../shared/contract'
import { LIVE_CLIP_MS, MARKER_LABEL_MAX } from '../../../../shared/markers'
import type { AppError } from '../../../../shared/result'
import { ErrorNote } from '../../components/ErrorNote'
import { useApi } from '../../lib/api'
import { useHotkey } from '../../lib/use-hotkeys'
import { ClipActions } from './ClipStatus'
import { clipStateText } from './clip-text'
import { useClipMaker } from './use-clips'

const clock = (ms: number): string =>
  new Date(ms).toLocaleTimeString(undefined, {
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit'
  })

export function LiveMoments({
  streamId,
  streamName,
  onAir,
  onPlayClip
}: {
  streamId: string
  streamName: string
  /** The service takes the stream now: clips and markers can be made (not while reconnecting). */
  onAir: boolean
  onPlayClip: (c: ClipView) => void
}): ReactNode {
  const api = useApi()
  const maker = useClipMaker()
  const [marker, setMarker] = useState<MarkerView | null>(null)
  const [word, setWord] = useState('')
  const [error, setError] = useState<AppError | null>(null)

  const clipLast = (): void => {
    const end = Date.now()
    void maker.make({
      streamId,
      startTime: end - LIVE_CLIP_MS,
      endTime: end,
      name: `${streamName} ${clock(end)}`
    })
  }
  const mark = (): void => {
    setError(null)
    void api.addMarker({ streamId }).then((r) => {
      if (!r.ok) return setError(r.error)
      setMarker(r.value)
      setWord('')
    })
  }
  // The creator's keys for both (the Keys screen), from the page or, in Electron, from anywhere.
  useHotkey('clip', (e) => {
    if (e.phase === 'down' && onAir && !maker.busy) clipLast()
  })
  useHotkey('marker', (e) => {
    if (e.phase === 'down' && onAir) mark()
  })
  const saveWord = (): void => {
    if (!marker) return
    void api
      .labelMarker(marker.id, word)
      .then((r) => (r.ok ? setMarker(r.value) : setError(r.error)))
  }
  const save = (c: ClipView): void =>
    void api.downloadClip(c.id).then((r) => !r.ok && setError(r.error))

  return (
    <div className="live-moments" data-testid="live-moments">
      <button
        type="button"
        className="secondary"
        data-testid="clip-live"
        disabled={maker.busy || !onAir}
        onClick={clipLast}
        title="Clip the last 30 seconds of the broadcast"
      >
        Clip last 30 s
      </button>
      <button
        type="button"
        className="secondary"
        data-testid="add-marker"
        disabled={!onAir}
        onClick={mark}
        title="Mark this moment: it shows on the recording's timeline"
      >
        Marker
      </button>
      {maker.clip && (
        <span
          className="moment"
          data-testid="live-clip"
          data-state={maker.clip.state}
          aria-live="polite"
        >
          Clip: {clipStateText(maker.clip)}
          <ClipActions clip={maker.clip} onPlay={onPlayClip} onSave={save} />
        </span>
      )}
      {marker && (
        <form
          className="moment"
          data-testid="live-marker"
          onSubmit={(e) => {
            e.preventDefault()
            saveWord()
          }}
        >
          <span aria-live="polite">Marker at {clock(marker.at)}</span>
          <input
            aria-label="A word for the marker"
            placeholder="Add a word (optional)"
            maxLength={MARKER_LABEL_MAX}
            value={word}
            data-testid="marker-word"
            onChange={(e) => setWord(e.target.value)}
          />
          <button type="submit" className="secondary" data-testid="marker-word-save">
            Save
          </button>
          {marker.label && <span className="muted">“{marker.label}”</span>}
        </form>
      )}
      {(maker.error ?? error) && (
        <ErrorNote error={(maker.error ?? error)!} testId="moments-error" />
      )}
    </div>
  )
}
