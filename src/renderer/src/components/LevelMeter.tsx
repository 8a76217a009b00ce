// Every level meter of the app (the mixer's channels and master, the Go live microphone, the audio
// panel): a bar on a -60..0 dBFS scale (role=meter, its value 0..100 along the bar and its text in
// dBFS), the held peak as a line (PEAK_HOLD_MS, then falling), the level in figures, and a clip light
// that comes on at CLIP_DB and stays lit until it is clicked. The owner gives `read`, the last block's
// peak (linear); the meter reads it on each animation frame and moves itself through refs, never by a
// React render (60 renders a second per bar would be wasted work).
import { useEffect, useRef, type ReactNode } from 'react'
import { PeakMeter, meterFraction, type MeterReading } from '../../../shared/audio'

export function LevelMeter({
  labelledBy,
  testId,
  read,
  marker,
  markerLabel,
  label
}: {
  labelledBy: string
  testId: string
  /** The last block's peak, linear (1 = full scale); read on every animation frame. */
  read: () => number
  /** A line across the bar at this level (0..1), e.g. a noise gate's threshold. */
  marker?: number
  markerLabel?: string
  /** The meter's name in the clip light's label ("Microphone"). */
  label: string
}): ReactNode {
  const bar = useRef<HTMLDivElement>(null)
  const fill = useRef<HTMLDivElement>(null)
  const hold = useRef<HTMLDivElement>(null)
  const figure = useRef<HTMLSpanElement>(null)
  const clip = useRef<HTMLButtonElement>(null)
  const meter = useRef(new PeakMeter())
  const readRef = useRef(read)
  readRef.current = read

  useEffect(() => {
    let frame = 0
    let shownClip: boolean | null = null
    // What the DOM shows now: each frame writes only what changed. The fill and the held peak move by
    // transform (no layout); the figure, the ARIA values and the data attributes are written when
    // their text changes. A write every frame, changed or not, cost the page a style, layout and
    // hit-test pass per animation frame with three meters on screen (#34).
    const shown = { level: -1, hot: '', hold: -1, db: '', peak: '', figure: '', now: '', text: '' }
    const tick = (): void => {
      const r = meter.current.read(readRef.current(), performance.now())
      show(r)
      if (r.clipped !== shownClip && clip.current) {
        shownClip = r.clipped
        clip.current.dataset.on = String(r.clipped)
        clip.current.setAttribute(
          'aria-label',
          r.clipped ? `${label} clipped: clear the clip light` : `${label}: no clipping`
        )
      }
      frame = requestAnimationFrame(tick)
    }
    const show = (r: MeterReading): void => {
      const el = bar.current
      if (!el) return
      const level = meterFraction(r.db)
      // A thousandth of the bar is below a pixel on any meter the app draws.
      const step = Math.round(level * 1000) / 1000
      if (fill.current && step !== shown.level) {
        shown.level = step
        fill.current.style.transform = `scaleX(${step})`
      }
      const hot = String(r.db > -6)
      if (fill.current && hot !== shown.hot) fill.current.dataset.hot = shown.hot = hot
      const holdAt = Math.round(meterFraction(r.holdDb) * 1000) / 10
      if (hold.current && holdAt !== shown.hold) {
        shown.hold = holdAt
        hold.current.style.transform = `translateX(${holdAt}%)`
      }
      const db = r.db.toFixed(1)
      const now = String(Math.round(level * 100))
      const text = r.db <= -60 ? 'silence' : `${db} dBFS`
      if (now !== shown.now) el.setAttribute('aria-valuenow', (shown.now = now))
      if (text !== shown.text) el.setAttribute('aria-valuetext', (shown.text = text))
      if (db !== shown.db) el.dataset.db = shown.db = db
      const peak = r.holdDb.toFixed(1)
      if (peak !== shown.peak) el.dataset.peakDb = shown.peak = peak
      const figureText = r.holdDb <= -60 ? '-inf' : peak
      if (figure.current && figureText !== shown.figure)
        figure.current.textContent = shown.figure = figureText
    }
    frame = requestAnimationFrame(tick)
    return () => cancelAnimationFrame(frame)
  }, [label])

  return (
    <span className="level-meter">
      <span
        className="meter"
        ref={bar}
        role="meter"
        aria-labelledby={labelledBy}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={0}
        aria-valuetext="silence"
        data-testid={testId}
      >
        <span className="meter-fill" ref={fill} />
        <span className="meter-hold" ref={hold} data-testid={`${testId}-hold`} />
        {marker !== undefined && (
          <span
            className="meter-marker"
            style={{ left: `${Math.round(marker * 1000) / 10}%` }}
            title={markerLabel}
            data-testid={`${testId}-marker`}
          />
        )}
      </span>
      <span className="meter-db mono small" ref={figure} aria-hidden="true" title="Peak (dBFS)">
        -inf
      </span>
      <button
        type="button"
        className="clip"
        ref={clip}
        data-on="false"
        data-testid={`${testId}-clip`}
        aria-label={`${label}: no clipping`}
        title="Lit when the level reached full scale; click to clear"
        onClick={() => {
          meter.current.clear()
          if (clip.current) clip.current.dataset.on = 'false'
        }}
      >
        CLIP
      </button>
    </span>
  )
}
