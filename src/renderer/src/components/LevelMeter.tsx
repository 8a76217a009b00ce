// A level bar (role=meter, 0..100). Its fill is moved by the owner through `fillRef` on each animation
// frame (setLevel below), never by a React render.
import type { ReactNode, Ref } from 'react'

export function LevelMeter({
  labelledBy,
  testId,
  fillRef,
  marker,
  markerLabel
}: {
  labelledBy: string
  testId: string
  fillRef: Ref<HTMLDivElement>
  /** A line across the bar at this level (0..1), e.g. a noise gate's threshold. */
  marker?: number
  markerLabel?: string
}): ReactNode {
  return (
    <div
      className="meter"
      role="meter"
      aria-labelledby={labelledBy}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={0}
      data-testid={testId}
    >
      <div className="meter-fill" ref={fillRef} />
      {marker !== undefined && (
        <div
          className="meter-marker"
          style={{ left: `${Math.round(marker * 1000) / 10}%` }}
          title={markerLabel}
          data-testid={`${testId}-marker`}
        />
      )}
    </div>
  )
}

/** Shows a level 0..1 on a meter's fill, and says it to assistive technology. */
export function setLevel(fill: HTMLDivElement | null | undefined, level: number): void {
  if (!fill) return
  fill.style.transform = `scaleX(${level})`
  fill.parentElement?.setAttribute('aria-valuenow', String(Math.round(level * 100)))
}
