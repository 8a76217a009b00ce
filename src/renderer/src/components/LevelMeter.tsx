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
      if (fill.current) {
        fill.current.style.transform = `scaleX(${level})`
        fill.current.dataset.hot = String(r.db > -6)
      }
      if (hold.current) hold.current.style.left = `${meterFraction(r.holdDb) * 100}%`
      const db = r.db.toFixed(1)
      el.setAttribute('aria-valuenow', String(Math.round(level * 100)))
      el.setAttribute('aria-valuetext', r.db <= -60 ? 'silence' : `${db} dBFS`)
      el.dataset.db = db
      el.dataset.peakDb = r.holdDb.toFixed(1)
      if (figure.current)
        figure.current.textContent = r.holdDb <= -60 ? '-inf' : r.holdDb.toFixed(1)
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
