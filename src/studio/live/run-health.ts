// Health aggregation: a live run's conditions (health.ts) from its ladder and its targets, and the
// stream's overall verdict kept across calls for GET /data/stream/{id}/health.
import { isStartingIssue, startingIssue } from '../../shared/destinations'
import {
  ConditionState,
  healthOf,
  healthStatusToApi,
  TranscodeHealth,
  type HealthView
} from '../health'
import type { Run } from './run'
import type { EnabledTarget } from './targets'

/**
 * The run's health while it is live, in Livepeer's conditions: Transcoding and TranscodeRealTime
 * from the ladder, Multistreaming from the targets: false while one is retrying, unknown (no
 * trouble: the condition is optional) while there are none or all are still starting, true once
 * one is live. One issue line per target that is starting or retrying. undefined when it is not
 * live (the API then says null, as the reference does). `enabled`: the stream's targets now.
 */
export function runHealth(r: Run, enabled: () => EnabledTarget[]): HealthView | undefined {
  if (!r.publishing || r.finalizing) return undefined
  // A target the run has no forwarder for yet (the run waits for the publisher's metadata, up to
  // 1.5 s, before it starts any) is starting too: the stream is already active, and a target
  // with no line would read as live.
  const started = new Set([...r.forwarders.values()].map((f) => f.target.targetId))
  const waiting = enabled()
    .filter(({ row }) => !started.has(row.id))
    .map(({ row }) => startingIssue({ id: row.id, name: row.name }))
  if (!r.transcodeHealth && waiting.length === 0) return undefined
  const transcodeHealth =
    r.transcodeHealth ?? new TranscodeHealth(r.session.profiles.length > 0, Date.now())
  const targetIssues = [
    ...new Set([
      ...[...r.forwarders.values()].map((f) => f.issue()).filter((i) => i !== undefined),
      ...waiting
    ])
  ]
  const retrying = targetIssues.filter((i) => !isStartingIssue(i))
  const allStarting =
    targetIssues.length === r.forwarders.size && targetIssues.every(isStartingIssue)
  const multistreaming = r.forwarders.size === 0 || allStarting ? null : retrying.length === 0
  r.multistreamHealth.set(multistreaming, Date.now())
  return healthOf(transcodeHealth, r.multistreamHealth, targetIssues)
}

/** Each stream's overall verdict, kept for its probe and transition times. */
export class HealthVerdicts {
  private readonly verdicts = new Map<string, ConditionState<'Healthy'>>()

  /** The conditions in livepeer-data's shape, `view` being the stream's health now. */
  report(streamId: string, view: HealthView | undefined): Record<string, unknown> {
    let verdict = this.verdicts.get(streamId)
    if (!verdict) this.verdicts.set(streamId, (verdict = new ConditionState('Healthy')))
    return healthStatusToApi(streamId, view, verdict, Date.now())
  }
}
