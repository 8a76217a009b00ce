// A live stream's health, in Livepeer's terms: the conditions Transcoding and TranscodeRealTime
// (required) and Multistreaming (optional), each true, false or unknown (null) with the times it was
// last probed and last changed; the stream is healthy unless a condition is false (livepeer-data's
// health reducer; an unknown required condition makes its verdict unknown). `issues` says, in
// words, why a condition is false: `Transcoding: the transcoder failed (<cause>)`.

export type ConditionType = 'Transcoding' | 'TranscodeRealTime' | 'Multistreaming'

export interface Condition {
  type: ConditionType | 'Healthy'
  status: boolean | null
  /** Unix ms. */
  lastProbeTime: number | null
  lastTransitionTime: number | null
}

const REQUIRED: ReadonlyArray<[ConditionType, boolean]> = [
  ['Transcoding', false],
  ['TranscodeRealTime', false],
  ['Multistreaming', true]
]

/** Livepeer's reducer: false if any condition is false, unknown if a required one is unknown. */
export function reduceHealthy(conditions: readonly Condition[]): boolean | null {
  let healthy: boolean | null = true
  for (const [type, optional] of REQUIRED) {
    const c = conditions.find((x) => x.type === type)
    if (!c || c.status === null) {
      if (!optional) healthy = null
      continue
    }
    if (!c.status) return false
  }
  return healthy
}

/** A condition that keeps its probe and transition times. */
export class ConditionState<T extends ConditionType | 'Healthy' = ConditionType> {
  private status: boolean | null = null
  private probed: number | null = null
  private changed: number | null = null

  constructor(readonly type: T) {}

  set(status: boolean | null, now: number): void {
    if (status === null) {
      this.status = null
      return
    }
    this.probed = now
    if (this.status !== status) this.changed = now
    this.status = status
  }

  get value(): boolean | null {
    return this.status
  }

  view(): Condition & { type: T } {
    return {
      type: this.type,
      status: this.status,
      lastProbeTime: this.probed,
      lastTransitionTime: this.changed
    }
  }
}

/**
 * Media seconds written per wall second over the last `windowMs` (at least `minSpanMs` of
 * samples): 1 keeps up with real time. A new attempt restarts its media time, so it resets.
 */
export class RateMeter {
  private samples: Array<[number, number]> = []

  constructor(
    private readonly windowMs = 6000,
    private readonly minSpanMs = 4000
  ) {}

  reset(): void {
    this.samples = []
  }

  push(nowMs: number, mediaS: number): void {
    this.samples.push([nowMs, mediaS])
    // Keep one sample at or before the window's start, so the span covers the whole window.
    while (this.samples.length > 2 && this.samples[1]![0] <= nowMs - this.windowMs)
      this.samples.shift()
  }

  /** undefined until the samples span minSpanMs. */
  rate(): number | undefined {
    const first = this.samples[0]
    const last = this.samples[this.samples.length - 1]
    if (!first || !last || last[0] - first[0] < this.minSpanMs) return undefined
    return ((last[1] - first[1]) * 1000) / (last[0] - first[0])
  }
}

/** Slower than this share of the source's pace (itself at most real time) is not real time. */
export const REAL_TIME_MIN = 0.9

export interface HealthView {
  healthy: boolean | null
  conditions: Condition[]
  issues: string[]
}

/**
 * The transcoding side of a live run: whether the ladder is being made (and if not, why), and
 * whether it keeps up with the source. Without profiles there is nothing to transcode: both
 * conditions are true.
 */
export class TranscodeHealth {
  private readonly transcoding = new ConditionState('Transcoding')
  private readonly realTime = new ConditionState('TranscodeRealTime')
  private readonly ladder = new RateMeter()
  private readonly source = new RateMeter()
  private cause: string | undefined
  private speed: number | undefined

  constructor(hasLadder: boolean, now: number) {
    if (!hasLadder) {
      this.transcoding.set(true, now)
      this.realTime.set(true, now)
    }
  }

  /** The ladder wrote media (a new attempt's first): transcoding works again. */
  flowing(now: number): void {
    this.cause = undefined
    this.transcoding.set(true, now)
  }

  /** The ladder failed or cannot start; `cause` in words ("width 99999 is more than 4096"). */
  failed(cause: string, now: number): void {
    this.cause = cause
    this.transcoding.set(false, now)
    // TranscodeRealTime keeps its last verdict until the next attempt has been measured.
    this.ladder.reset()
  }

  /** A new ladder attempt starts: its media time starts at 0. */
  attempt(): void {
    this.ladder.reset()
  }

  ladderProgress(now: number, mediaS: number): void {
    this.ladder.push(now, mediaS)
    this.judgeRealTime(now)
  }

  sourceProgress(now: number, mediaS: number): void {
    this.source.push(now, mediaS)
  }

  /** The source recorder restarted: its media time starts at 0. */
  sourceAttempt(): void {
    this.source.reset()
  }

  private judgeRealTime(now: number): void {
    const rate = this.ladder.rate()
    if (rate === undefined) return
    const pace = Math.min(1, this.source.rate() ?? 1)
    this.speed = rate
    this.realTime.set(rate >= REAL_TIME_MIN * pace, now)
  }

  conditions(): Condition[] {
    return [this.transcoding.view(), this.realTime.view()]
  }

  issues(): string[] {
    const out: string[] = []
    if (this.transcoding.value === false)
      out.push(`Transcoding: the transcoder failed (${this.cause ?? 'unknown cause'})`)
    else if (this.realTime.value === false)
      out.push(
        `TranscodeRealTime: the transcoder runs at ${(this.speed ?? 0).toFixed(2)}x real time, too slow for live`
      )
    return out
  }
}

/** The whole health of a live run: the transcoding conditions plus Multistreaming. */
export function healthOf(
  t: TranscodeHealth,
  multistream: ConditionState,
  targetIssues: string[]
): HealthView {
  const conditions = [...t.conditions(), multistream.view()]
  return {
    healthy: reduceHealthy(conditions),
    conditions,
    issues: [...t.issues(), ...targetIssues]
  }
}

/**
 * GET /data/stream/{id}/health, in livepeer-data's HealthStatus shape: `healthy` is a condition
 * without a type, and every condition is listed (status null when the stream is not live).
 */
export function healthStatusToApi(
  id: string,
  view: HealthView | undefined,
  healthy: ConditionState<'Healthy'>,
  now: number
): Record<string, unknown> {
  healthy.set(view ? view.healthy : null, now)
  const conditions: Condition[] =
    view?.conditions ??
    (['Transcoding', 'TranscodeRealTime', 'Multistreaming'] as const).map((type) => ({
      type,
      status: null,
      lastProbeTime: null,
      lastTransitionTime: null
    }))
  const { type: _healthy, ...verdict } = healthy.view()
  return { id, healthy: verdict, conditions }
}
