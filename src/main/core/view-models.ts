// What the renderer may see of the service's objects: the stream key only masked, URLs ready to use.
import type { components } from '../../shared/api/schema'
import type {
  ClipView,
  ClipFailure,
  DestinationsView,
  IngestView,
  PlaybackView,
  RecordingStatus,
  SessionView,
  StreamTargetRef,
  StreamView
} from '../../shared/contract'
import { destinationsOf, type TargetInfo } from '../../shared/destinations'
import type { Profile } from '../../shared/profiles'
import type { HealthCondition } from '../../shared/stream-health'

export type ApiStream = components['schemas']['stream']
export type ApiSession = components['schemas']['session']
export type ApiPlayback = components['schemas']['playback-info']
export type ApiAsset = components['schemas']['asset']

/** `abcd-efgh-ijkl-3f9a` -> `••••-••••-••••-3f9a`; keys without groups keep their last 4. */
export function maskStreamKey(key: string | undefined): string {
  if (!key) return ''
  const groups = key.split('-')
  if (groups.length > 1)
    return groups.map((g, i) => (i === groups.length - 1 ? g : '•'.repeat(g.length))).join('-')
  return '•'.repeat(Math.max(0, key.length - 4)) + key.slice(-4)
}

const profilesOf = (p: unknown): Profile[] => (Array.isArray(p) ? (p as Profile[]) : [])

export function toStreamView(s: ApiStream, ingest: IngestView): StreamView {
  const playbackId = s.playbackId ?? ''
  return {
    id: s.id ?? '',
    name: s.name,
    createdAt: s.createdAt ?? 0,
    isActive: s.isActive ?? false,
    lastSeen: s.lastSeen ?? 0,
    record: s.record ?? false,
    suspended: s.suspended ?? false,
    profiles: profilesOf(s.profiles),
    playbackId,
    streamKeyMasked: maskStreamKey(s.streamKey),
    ingestUrl: ingest.rtmp,
    playbackUrl: playbackId ? `${ingest.playbackBase}/${playbackId}/index.m3u8` : '',
    isHealthy: typeof s.isHealthy === 'boolean' ? s.isHealthy : null,
    issues: issuesOf(s.issues),
    multistream: targetRefsOf(s)
  }
}

/** The conditions of a Livepeer health answer ({conditions: [{type, status}]}); undefined if none. */
export function healthConditionsOf(health: unknown): HealthCondition[] | undefined {
  const list = (health as { conditions?: unknown } | null)?.conditions
  if (!Array.isArray(list)) return undefined
  return list.flatMap((c: { type?: unknown; status?: unknown }) =>
    typeof c?.type === 'string'
      ? [{ type: c.type, status: typeof c.status === 'boolean' ? c.status : null }]
      : []
  )
}

const issuesOf = (x: unknown): string[] =>
  Array.isArray(x) ? x.filter((i): i is string => typeof i === 'string') : []

/** The stream's targets that name a target object (an inline `spec` is replaced by its id when stored). */
export function targetRefsOf(s: ApiStream): StreamTargetRef[] {
  const targets = s.multistream?.targets
  if (!Array.isArray(targets)) return []
  return targets.flatMap((t) =>
    typeof t?.id === 'string' && t.id
      ? [{ id: t.id, profile: t.profile, videoOnly: t.videoOnly ?? false }]
      : []
  )
}

/** The stream's destinations (shared/destinations.ts destinationsOf) from the service's stream. */
export function toDestinationsView(
  s: ApiStream,
  targets: ReadonlyMap<string, TargetInfo>
): DestinationsView {
  return destinationsOf(
    {
      id: s.id ?? '',
      isActive: s.isActive ?? false,
      issues: issuesOf(s.issues),
      multistream: targetRefsOf(s)
    },
    targets
  )
}

const RECORDING: readonly string[] = ['waiting', 'ready', 'failed', 'deleted', 'none']

export function toSessionView(s: ApiSession): SessionView {
  const status = s.recordingStatus
  return {
    id: s.id ?? '',
    parentId: s.parentId ?? '',
    name: s.name,
    createdAt: s.createdAt ?? 0,
    lastSeen: s.lastSeen ?? 0,
    sourceSegmentsDuration: s.sourceSegmentsDuration ?? 0,
    record: s.record ?? false,
    recordingStatus: status && RECORDING.includes(status) ? (status as RecordingStatus) : undefined,
    recordingUrl: s.recordingUrl,
    mp4Url: s.mp4Url,
    playbackId: s.playbackId,
    profiles: profilesOf(s.profiles)
  }
}

export function toPlaybackView(p: ApiPlayback): PlaybackView {
  return {
    type: p.type,
    live: p.meta.live === undefined ? undefined : p.meta.live === 1,
    sources: p.meta.source.map((x) => ({
      hrn: x.hrn,
      type: x.type,
      url: x.url,
      width: x.width,
      height: x.height,
      bitrate: x.bitrate
    }))
  }
}

const CLIP_STATES: Record<string, ClipView['state']> = {
  uploading: 'waiting',
  waiting: 'waiting',
  processing: 'processing',
  ready: 'ready',
  failed: 'failed'
}

/** Why a failed clip failed: the service's words, else its phase, else gone (no status). */
function clipFailure(st: ApiAsset['status']): ClipFailure {
  if (st?.errorMessage) return { kind: 'service', message: st.errorMessage }
  return st?.phase ? { kind: 'phase', phase: st.phase } : { kind: 'gone' }
}

/** A clip as the renderer sees it, from the service's asset (its source says what it was cut from). */
export function toClipView(a: ApiAsset): ClipView {
  const src = a.source as { sourceId?: string; sessionId?: string }
  const state = CLIP_STATES[a.status?.phase ?? ''] ?? 'failed'
  const duration = a.videoSpec?.duration
  return {
    id: a.id,
    name: a.name,
    ...(src.sourceId ? { streamId: src.sourceId } : {}),
    ...(src.sessionId ? { sessionId: src.sessionId } : {}),
    createdAt: a.createdAt ?? 0,
    state,
    ...(state === 'failed' ? { failure: clipFailure(a.status) } : {}),
    ...(typeof duration === 'number' ? { duration } : {}),
    ...(state === 'ready' && a.playbackUrl ? { playbackUrl: a.playbackUrl } : {}),
    ...(state === 'ready' && a.downloadUrl ? { downloadUrl: a.downloadUrl } : {})
  }
}
