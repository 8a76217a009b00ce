// Electron's getDisplayMedia asks here which screen or window to share (main's display:choose event,
// src/main/core/display-chooser.ts). A browser shows its own chooser, so in the web shell this stays hidden.
import { useEffect, useLayoutEffect, useRef, useState, type ReactNode, type RefObject } from 'react'
import type { DisplayChooseEvent, DisplaySourceView } from '../../../../shared/contract'
import { useApi } from '../../lib/api'
import { useDialog } from '../../components/use-dialog'
import '../../styles/chooser.css'

/** Mounted once near the app root: shows the chooser whenever main asks. */
export function DisplayChooser(): ReactNode {
  const api = useApi()
  const [ask, setAsk] = useState<DisplayChooseEvent | null>(null)
  // Subscribed during the commit (not after paint): a question sent as soon as the app shows is heard.
  useLayoutEffect(() => api.on('display:choose', setAsk), [api])
  // Main answers "cancelled" by itself at expiresAt: the dialog goes away then too.
  useEffect(() => {
    if (!ask) return
    const t = setTimeout(
      () => setAsk((now) => (now === ask ? null : now)),
      Math.max(0, ask.expiresAt - Date.now())
    )
    return () => clearTimeout(t)
  }, [ask])
  if (!ask) return null
  const answer = (sourceId: string | null): void => {
    setAsk(null)
    // A refusal means the question was already closed (timed out, replaced): getDisplayMedia has its
    // answer, and the capture's own error says what happened.
    void api.chooseDisplaySource(ask.requestId, sourceId)
  }
  return <ChooserDialog key={ask.requestId} sources={ask.sources} onAnswer={answer} />
}

function ChooserDialog({
  sources,
  onAnswer
}: {
  sources: DisplaySourceView[]
  onAnswer: (sourceId: string | null) => void
}): ReactNode {
  const [picked, setPicked] = useState<string | null>(null)
  const box = useRef<HTMLDivElement>(null)
  const firstSource = useRef<HTMLButtonElement>(null)
  const cancelButton = useRef<HTMLButtonElement>(null)
  // Focus goes to the first source (or Cancel when there is none); Escape cancels.
  useDialog(box, sources.length ? firstSource : cancelButton, () => onAnswer(null))
  const screens = sources.filter((s) => s.kind === 'screen')
  const windows = sources.filter((s) => s.kind === 'window')
  const firstId = (screens[0] ?? windows[0])?.id

  const group = (label: string, list: DisplaySourceView[]): ReactNode =>
    list.length > 0 && (
      <section className="chooser-group" aria-label={label}>
        <h3>{label}</h3>
        <div className="chooser-grid">
          {list.map((s) => (
            <SourceButton
              key={s.id}
              source={s}
              picked={picked === s.id}
              buttonRef={s.id === firstId ? firstSource : undefined}
              onPick={() => setPicked(s.id)}
              onShare={() => onAnswer(s.id)}
            />
          ))}
        </div>
      </section>
    )

  return (
    <div className="overlay" role="presentation">
      <div
        className="dialog chooser"
        ref={box}
        role="dialog"
        aria-modal="true"
        aria-labelledby="chooser-title"
        aria-describedby="chooser-help"
        data-testid="display-chooser"
      >
        <h2 id="chooser-title">Choose what to share</h2>
        <p id="chooser-help" className="muted">
          {sources.length
            ? 'Pick a screen or a window, then Share. Onair itself is not in the list.'
            : 'Onair sees no screen or window to share.'}
        </p>
        {sources.length === 0 && (
          <p className="muted" data-testid="chooser-empty">
            On macOS, allow Onair under System Settings › Privacy &amp; Security › Screen Recording,
            then try again.
          </p>
        )}
        {group('Screens', screens)}
        {group('Windows', windows)}
        <div className="chooser-actions">
          <button
            type="button"
            ref={cancelButton}
            className="secondary"
            onClick={() => onAnswer(null)}
          >
            Cancel
          </button>
          <button
            type="button"
            disabled={picked === null}
            data-testid="chooser-share"
            onClick={() => picked !== null && onAnswer(picked)}
          >
            Share
          </button>
        </div>
      </div>
    </div>
  )
}

function SourceButton({
  source,
  picked,
  buttonRef,
  onPick,
  onShare
}: {
  source: DisplaySourceView
  picked: boolean
  buttonRef?: RefObject<HTMLButtonElement | null>
  onPick: () => void
  onShare: () => void
}): ReactNode {
  return (
    <button
      type="button"
      ref={buttonRef}
      className="chooser-source"
      aria-pressed={picked}
      title={source.name}
      data-testid="display-source"
      data-source-id={source.id}
      onClick={onPick}
      onDoubleClick={onShare}
    >
      {source.thumbnail ? (
        <img className="chooser-thumb" src={source.thumbnail} alt="" />
      ) : (
        <span className="chooser-thumb chooser-no-thumb">No preview</span>
      )}
      <span className="chooser-name">
        {source.appIcon && <img className="chooser-icon" src={source.appIcon} alt="" />}
        <span className="ellipsis">{source.name}</span>
      </span>
    </button>
  )
}
