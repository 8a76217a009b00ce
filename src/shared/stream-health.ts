// The stream's health as the service reports it (Livepeer's `isHealthy` and `issues` on the stream,
// and the conditions of GET /data/stream/{id}/health), said in the creator's words: one pure
// function for the live bar. Livepeer's conditions, as its health reducer (livepeer-data) has them:
// Transcoding and TranscodeRealTime are required (false makes the stream unhealthy, null leaves the
// verdict open), Multistreaming is optional (null never counts). Issue strings are free text: the
// ones we recognise are said again in words, any other is shown as the service wrote it.
import { isStartingIssue, retryingReason } from './destinations'
import type { HealthCondition } from './stream-states'

/** One condition of Livepeer's health answer: written in stream-states.ts (the contract carries it). */
export type { HealthCondition }

export interface StreamHealthInput {
  /** The stream's verdict while active (null: the service has none, or the stream is not active). */
  isHealthy: boolean | null
  issues: readonly string[]
  /** GET /data/stream/{id}/health's conditions, when the service has that endpoint. */
  conditions?: readonly HealthCondition[]
  /** The stream's renditions (its profiles' names), as the creator named them. */
  renditions: readonly string[]
}

export interface StreamHealthWords {
  /** fine: nothing to say; trouble: one sentence per problem; unknown: no verdict yet. */
  level: 'fine' | 'trouble' | 'unknown'
  sentences: string[]
}

/** "720p", "720p and 480p", "720p, 480p and 360p". */
export function andList(names: readonly string[]): string {
  if (names.length <= 1) return names[0] ?? ''
  return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`
}

const TRANSCODE = /transcod/i
const SLOW = /real[- ]?time|slower|behind|too slow/i
const MULTISTREAM = /multistream|destination|target/i

/** The cause an issue line names after its first colon ("Transcoding failed: width 99999 ..."). */
function causeOf(issue: string | undefined): string | undefined {
  if (!issue) return undefined
  const i = issue.indexOf(':')
  const cause = (i >= 0 ? issue.slice(i + 1) : '').trim().replace(/\.$/, '')
  // The local studio's line says it whole ("Transcoding: the transcoder failed (<cause>)"): keep the
  // cause, so the sentence does not say "the transcoder failed" twice.
  return /^the transcoder failed \((.+)\)$/i.exec(cause)?.[1] ?? (cause || undefined)
}

const conditionOf = (
  conditions: readonly HealthCondition[] | undefined,
  type: string
): boolean | null | undefined => conditions?.find((c) => c.type === type)?.status

/**
 * What the live bar says about the stream's health. Each problem the service names (by a condition
 * or by an issue line) gets one sentence; an issue line nobody recognises is shown as it is, so a
 * problem is never hidden because its wording is new.
 */
export function streamHealthInWords(h: StreamHealthInput): StreamHealthWords {
  // A target that is connecting (destinations.ts startingIssue) is not a problem.
  const issues = h.issues.filter((i) => !isStartingIssue(i))
  const used = new Set<string>()
  const take = (re: RegExp, not?: RegExp): string | undefined => {
    const found = issues.find((i) => !used.has(i) && re.test(i) && !(not && not.test(i)))
    if (found !== undefined) used.add(found)
    return found
  }
  const sentences: string[] = []
  const made = h.renditions.length ? andList(h.renditions) : 'The renditions'
  const are = h.renditions.length === 1 ? 'is' : 'are'

  const slowIssue = take(SLOW)
  const transcodeIssue = take(TRANSCODE)
  const transcoding = conditionOf(h.conditions, 'Transcoding')
  const realTime = conditionOf(h.conditions, 'TranscodeRealTime')
  if (transcoding === false || (transcoding === undefined && transcodeIssue !== undefined)) {
    const cause = causeOf(transcodeIssue)
    sentences.push(
      `${made} ${are} not being made: the transcoder failed${cause ? ` (${cause})` : ''}. Viewers get the source only.`
    )
  }
  if (realTime === false || (realTime === undefined && slowIssue !== undefined)) {
    sentences.push(
      `${made} ${are} made slower than real time: viewers of ${h.renditions.length === 1 ? 'it' : 'them'} may wait or stall.`
    )
  }

  for (const issue of issues) {
    if (used.has(issue)) continue
    used.add(issue)
    const reason = retryingReason(issue)
    const name = /"([^"]*)"/.exec(issue)?.[1]
    if (reason !== undefined)
      sentences.push(
        `${name ? `"${name}"` : 'A destination'} is not receiving the stream: ${reason}.`
      )
    else if (MULTISTREAM.test(issue)) sentences.push(`A destination has trouble: ${issue}`)
    else sentences.push(`The service reports: ${issue}`)
  }
  if (
    conditionOf(h.conditions, 'Multistreaming') === false &&
    !sentences.some((s) => s.includes('destination') || s.includes('not receiving'))
  )
    sentences.push('A destination is not receiving the stream.')

  if (sentences.length === 0 && h.isHealthy === false)
    sentences.push('The service says the stream is not healthy, without saying why.')
  if (sentences.length) return { level: 'trouble', sentences }
  return { level: h.isHealthy === null ? 'unknown' : 'fine', sentences }
}
