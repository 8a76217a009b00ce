// Destinations (multistream targets): the pure rules both sides share. The renderer checks the form
// with them before sending, the core checks the same again (its arguments are untrusted), and the live
// state of each destination is read from the stream's `issues` here, in one place.
import type { DestinationsView, StreamView } from './contract'
import type { DestinationState } from './stream-states'

/** Ingest presets the creator can pick and then edit. Each service's key goes after a "/". */
export const DESTINATION_PRESETS = [
  { id: 'youtube', label: 'YouTube', server: 'rtmp://a.rtmp.youtube.com/live2' },
  { id: 'twitch', label: 'Twitch', server: 'rtmp://live.twitch.tv/app' },
  { id: 'facebook', label: 'Facebook', server: 'rtmps://live-api-s.facebook.com:443/rtmp/' },
  { id: 'custom', label: 'Other (RTMP, RTMPS or SRT)', server: '' }
] as const

export type PresetId = (typeof DESTINATION_PRESETS)[number]['id']

/** The rendition that means "what the encoder sends", without transcoding. */
export const SOURCE_RENDITION = 'source'

export const DESTINATION_LIMITS = { name: 200, url: 2000 } as const

const SCHEME = /^(rtmps?|srt):\/\//i

/**
 * The URL sent to the service: server + "/" + key, without doubled slashes. An empty key leaves the
 * server URL as it is (an SRT address carries its stream id in the query).
 */
export function buildTargetUrl(server: string, key: string): string {
  const s = server.trim().replace(/\/+$/, '')
  const k = key.trim().replace(/^\/+/, '')
  return k ? `${s}/${k}` : s
}

export interface DestinationIssue {
  field: 'name' | 'server' | 'key' | 'profile'
  message: string
}

/** Whether a target URL is one the service can push to; the message names what is wrong. */
export function checkTargetUrl(url: string): DestinationIssue | null {
  // The service's own rule (its OpenAPI pattern) is on the text: `rtmp:/host` parses, but is refused.
  const u = SCHEME.test(url.trim()) ? parseUrl(url.trim()) : null
  if (!u)
    return {
      field: 'server',
      message:
        'Server URL must start with rtmp://, rtmps:// or srt://, e.g. rtmp://a.rtmp.youtube.com/live2.'
    }
  if (!u.hostname) return { field: 'server', message: 'Server URL has no host name.' }
  if (/\s/.test(url.trim()))
    return { field: 'server', message: 'Server URL and stream key must not contain spaces.' }
  if (url.length > DESTINATION_LIMITS.url)
    return {
      field: 'server',
      message: `Server URL and key are too long (at most ${DESTINATION_LIMITS.url} characters).`
    }
  return null
}

export interface DestinationInput {
  name: string
  server: string
  key: string
  profile: string
}

/** Every problem with the form at once, each with its field: nothing is sent while there is one. */
export function checkDestination(
  input: DestinationInput,
  profileNames: readonly string[]
): DestinationIssue[] {
  const issues: DestinationIssue[] = []
  const name = input.name.trim()
  if (!name) issues.push({ field: 'name', message: 'Name is required, e.g. "YouTube".' })
  else if (name.length > DESTINATION_LIMITS.name)
    issues.push({
      field: 'name',
      message: `Name is too long (at most ${DESTINATION_LIMITS.name} characters).`
    })
  const keySpaced = /\s/.test(input.key.trim())
  if (keySpaced) issues.push({ field: 'key', message: 'Stream key must not contain spaces.' })
  // The URL is checked with a stand-in key when the key's own problem is already named.
  const urlIssue = checkTargetUrl(buildTargetUrl(input.server, keySpaced ? 'key' : input.key))
  if (urlIssue) issues.push(urlIssue)
  // An RTMP service finds the channel by its key: without one the push is refused at the far end.
  else if (!input.key.trim() && !/^srt:/i.test(input.server.trim()))
    issues.push({ field: 'key', message: 'Stream key is required: copy it from the service.' })
  if (input.profile !== SOURCE_RENDITION && !profileNames.includes(input.profile))
    issues.push({
      field: 'profile',
      message: `Rendition "${input.profile}" is not one of this stream's profiles.`
    })
  return issues
}

// ---- live state -------------------------------------------------------------------------------------

/** idle, starting, live, retrying or disabled: written in stream-states.ts (the contract carries it). */
export type { DestinationState }

/**
 * How much media must have reached a target before it shows "live": 1.5 s, on a connection that has
 * also stayed up 1.5 s of wall time (a first burst can be seconds of media). A server that takes the
 * publish and then refuses the key closes the connection within a moment of the first media, so by
 * then the target has taken the stream.
 */
export const DESTINATION_LIVE_AFTER_US = 1_500_000

export interface TargetStateInput {
  id: string
  name: string
  disabled: boolean
}

export interface TargetState {
  state: DestinationState
  /** While retrying: why, as the service said it. */
  reason?: string
}

/**
 * The local studio's issue line for a retrying target, exactly: its forwarder writes it with this,
 * and `targetState` reads the reason back with `retryingReason`. One format, one parser.
 */
export function retryingIssue(target: { id: string; name: string }, reason: string): string {
  return `Multistream target "${target.name}" (${target.id}) is retrying: ${reason}`
}

/**
 * The local studio's issue line for a target that has not yet taken 1.5 s of media: the service has
 * no other per-target state on the stream, so the stream's issues carry it. Not a health problem
 * (shared/stream-health.ts leaves it out).
 */
export function startingIssue(target: { id: string; name: string }): string {
  return `Multistream target "${target.name}" (${target.id}) is starting`
}

const RETRYING = /\bis retrying:\s*(.+)$/
const STARTING = /\bis starting$/

/** Whether an issue line is a target's `startingIssue`. */
export const isStartingIssue = (issue: string): boolean =>
  STARTING.test(issue) && !RETRYING.test(issue)

/** The reason of an issue line in `retryingIssue`'s format; undefined for any other line. */
export function retryingReason(issue: string): string | undefined {
  return RETRYING.exec(issue)?.[1]?.trim() || undefined
}

/**
 * One destination's state from the stream's `isActive` and `issues`. A target is starting or
 * retrying when an issue names its id in parentheses (the local studio) or, for other services, its
 * quoted name; starting when that issue is a `startingIssue`.
 */
export function targetState(
  target: TargetStateInput,
  stream: { isActive: boolean; issues: readonly string[] | null | undefined }
): TargetState {
  if (target.disabled) return { state: 'disabled' }
  if (!stream.isActive) return { state: 'idle' }
  const issue = (stream.issues ?? []).find(
    (i) => i.includes(`(${target.id})`) || (!!target.name && i.includes(`"${target.name}"`))
  )
  if (issue === undefined) return { state: 'live' }
  if (isStartingIssue(issue)) return { state: 'starting' }
  return { state: 'retrying', reason: retryingReason(issue) ?? issue }
}

/** A target object as far as a destination shows it; `undefined` when the service no longer has it. */
export type TargetInfo = { name?: string; disabled?: boolean } | undefined

const MISSING = 'Missing destination'
const UNNAMED = 'Unnamed destination'

/**
 * The stream's destinations: each target reference of the stream joined with its target object, and
 * its state read from the stream's `isActive` and `issues`. The core makes it from the service's
 * answers; the renderer makes it again from each newer read of the stream (`targetsOf` a view).
 */
export function destinationsOf(
  stream: Pick<StreamView, 'id' | 'isActive' | 'issues' | 'multistream'>,
  targets: ReadonlyMap<string, TargetInfo>
): DestinationsView {
  return {
    streamId: stream.id,
    streamActive: stream.isActive,
    destinations: stream.multistream.map((ref) => {
      const t = targets.get(ref.id)
      const disabled = t?.disabled ?? false
      const st = targetState({ id: ref.id, name: t?.name ?? '', disabled }, stream)
      return {
        ...ref,
        name: t?.name || (t ? UNNAMED : MISSING),
        disabled,
        state: st.state,
        ...(st.reason ? { reason: st.reason } : {})
      }
    })
  }
}

/**
 * The target objects a view was made from, so that `destinationsOf` can make it again from a newer
 * read of the stream without reading each target once more.
 */
export function targetsOf(view: DestinationsView): Map<string, TargetInfo> {
  return new Map(
    view.destinations.map((d): [string, TargetInfo] => [
      d.id,
      d.name === MISSING && !d.disabled
        ? undefined
        : { name: d.name === UNNAMED ? '' : d.name, disabled: d.disabled }
    ])
  )
}

/**
 * What the live banner adds after "Live on <stream>": `+ 2 destinations (1 retrying)`. Disabled
 * destinations are not sent to, so they are named apart. Empty when there are none at all.
 */
export function destinationsSummary(states: readonly DestinationState[]): string {
  const sending = states.filter((s) => s !== 'disabled')
  const count = (st: DestinationState): number => sending.filter((s) => s === st).length
  const notes = [
    count('starting') ? `${count('starting')} starting` : '',
    count('retrying') ? `${count('retrying')} retrying` : ''
  ].filter(Boolean)
  const disabled = states.length - sending.length
  const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`
  const off = disabled ? `${plural(disabled, 'destination')} disabled` : ''
  if (!sending.length) return off ? `(${off})` : ''
  const main = `+ ${plural(sending.length, 'destination')}${notes.length ? ` (${notes.join(', ')})` : ''}`
  return off ? `${main}, ${disabled} disabled` : main
}

function parseUrl(s: string): URL | null {
  try {
    return new URL(s)
  } catch {
    return null
  }
}
