// The contract's upload calls (#35) on top of the uploader: "Publish as a video" of a local copy,
// "Upload the full copy" of a session whose service recording is missing, failed or short, and the
// comparison that decides it. Uploads belong to the connection they were started on.
// With the creator's switch on (UploadSettings.autoUploadFullCopy), each local copy that finishes is
// watched: once the service's recording of its session is final (ready, failed or none), the two
// are compared and a missing, failed or short recording has the full copy uploaded by itself.
import { existsSync } from 'node:fs'
import type { LocalRecordingView, OnairCalls } from '../../../shared/contract'
import { AppFailure } from '../../../shared/result'
import {
  compareRecording,
  type RecordingCheck,
  type UploadSettings,
  type UploadView
} from '../../../shared/uploads'
import type { ApiClient } from '../api-client'
import type { ActiveService } from '../connections'
import { recordingFileName } from '../download-name'
import { sharedTransport } from '../http-transport'
import type { LocalRecordings } from '../local-recording/recordings'
import { toSessionView } from '../view-models'
import { Uploader, type AssetService } from './uploader'

export type UploadCalls = Pick<
  OnairCalls,
  | 'checkRecording'
  | 'publishLocalCopy'
  | 'listUploads'
  | 'pauseUpload'
  | 'resumeUpload'
  | 'cancelUpload'
  | 'dismissUpload'
  | 'getUploadSettings'
  | 'setUploadSettings'
>

export interface UploadsOptions {
  appDataDir: string
  active: () => Promise<ActiveService>
  recordings: LocalRecordings
  emit: (v: UploadView) => void
  log?: (line: string) => void
  /** The creator's upload choices, as kept (the settings file). */
  settings: { get(): UploadSettings; set(s: UploadSettings): UploadSettings }
  /** How often a finished copy's session is asked about until its recording is final. */
  autoPollMs?: number
  /** How long a copy is watched at most before the automatic upload gives up on it. */
  autoGiveUpMs?: number
}

/** What the automatic upload did with a copy. */
export type AutoDecision =
  | 'off'
  | 'not-finished'
  | 'already-watched'
  | 'complete'
  | 'already-uploaded'
  | 'uploaded'
  | 'gave-up'

/** A finished copy's session is asked about every 10 s... */
const AUTO_POLL_MS = 10_000
/** ...for at most 6 hours (Livepeer may take long to make a long recording). */
const AUTO_GIVE_UP_MS = 6 * 3600_000

/** Seconds of media in an HLS playlist: a master's first variant, else the playlist itself. */
export async function hlsSeconds(url: string, timeoutMs = 15_000): Promise<number | undefined> {
  const get = async (u: string): Promise<string | undefined> => {
    const r = await sharedTransport
      .request('GET', u, {}, undefined, timeoutMs)
      .catch(() => undefined)
    return r && r.status < 400 ? r.body : undefined
  }
  let text = await get(url)
  if (!text) return undefined
  if (text.includes('#EXT-X-STREAM-INF')) {
    const variant = text
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l && !l.startsWith('#'))
    if (!variant) return undefined
    text = await get(new URL(variant, url).toString())
    if (!text) return undefined
  }
  let sum = 0
  for (const m of text.matchAll(/#EXTINF:\s*([\d.]+)/g)) sum += Number(m[1])
  return sum > 0 ? Math.round(sum * 1000) / 1000 : undefined
}

/** What the uploader needs of a service, by its API client. */
export function assetService(client: () => Promise<ApiClient>): AssetService {
  return {
    requestUpload: async (name) => {
      const r = await (await client()).requestUpload(name)
      return { tusEndpoint: r.tusEndpoint, assetId: r.asset.id! }
    },
    getAsset: async (id) => {
      const a = await (await client()).getAsset(id)
      return {
        phase: a.status?.phase,
        errorMessage: a.status?.errorMessage,
        playbackId: a.playbackId,
        playbackUrl: a.playbackUrl
      }
    },
    deleteAsset: async (id) => (await client()).deleteAsset(id)
  }
}

export function uploadCalls(o: UploadsOptions): {
  calls: UploadCalls
  /**
   * A local copy changed (the recordings' emit): a finished one may be uploaded by itself. Answers
   * what was decided for it, once its recording is final (for the log and the tests).
   */
  copyChanged(copy: LocalRecordingView): Promise<AutoDecision>
  stop(): Promise<void>
} {
  /** The service of the connection an upload was started on, while that connection is active. */
  const service = (connectionId: string): AssetService =>
    assetService(async () => {
      const a = await o.active()
      if (a.conn.id !== connectionId)
        throw new AppFailure({
          code: 'not-found',
          message: 'This upload belongs to another connection.',
          hint: 'Make that connection active again to go on with it.'
        })
      return a.client
    })
  const uploader = new Uploader({
    appDataDir: o.appDataDir,
    service,
    emit: o.emit,
    log: o.log
  })
  // Uploads that were going when Onair stopped go on (from the service's offset).
  uploader.resumeAll()

  const must = <T>(v: T | undefined): T => {
    if (v === undefined)
      throw new AppFailure({ code: 'not-found', message: 'That upload is not there any more.' })
    return v
  }

  const calls: UploadCalls = {
    async checkRecording(sessionId): Promise<RecordingCheck> {
      const { conn, client } = await o.active()
      const session = toSessionView(await client.getSession(sessionId))
      const local = o.recordings.forSession(session)
      const base = {
        sessionId,
        service: conn.name,
        ...(local ? { localRecordingId: local.id } : {})
      }
      if (!local || local.durationSec === undefined || local.state === 'recording')
        return { ...base, verdict: { kind: 'pending' } }
      // What the recording plays, read from its playlist; the session's count when it cannot be read.
      const played =
        session.recordingStatus === 'ready' && session.recordingUrl
          ? await hlsSeconds(session.recordingUrl)
          : undefined
      const verdict = compareRecording(
        {
          record: session.record,
          recordingStatus: session.recordingStatus,
          durationSec: played ?? session.sourceSegmentsDuration
        },
        local.durationSec
      )
      return { ...base, verdict }
    },

    async publishLocalCopy(args) {
      const copy = o.recordings.get(args.localRecordingId)
      if (!copy)
        throw new AppFailure({ code: 'not-found', message: 'That local copy is not known.' })
      if (copy.state === 'recording')
        throw new AppFailure({
          code: 'busy',
          message: 'This copy is still being written.',
          hint: 'Publish it once the broadcast has ended.'
        })
      if (copy.moreFiles?.length)
        throw new AppFailure({
          code: 'local-recording',
          message: `This copy is in ${copy.moreFiles.length + 1} files, which could not be joined.`,
          hint: 'Join them into one file first.'
        })
      if (!existsSync(copy.file))
        throw new AppFailure({
          code: 'not-found',
          message: `The file is not there any more: ${copy.file}`,
          hint: 'It was moved or deleted.'
        })
      const { conn } = await o.active()
      const name = args.name?.trim() || recordingFileName(copy.streamName, copy.startedAt)
      return uploader.start({
        file: copy.file,
        name,
        connectionId: conn.id,
        ...(args.sessionId ? { sessionId: args.sessionId } : {})
      })
    },

    listUploads: async () => uploader.views(),
    pauseUpload: async (id) => {
      must(uploader.get(id))
      return uploader.pause(id)
    },
    resumeUpload: async (id) => {
      must(uploader.get(id))
      return uploader.resume(id)
    },
    cancelUpload: async (id) => {
      must(uploader.get(id))
      await uploader.cancel(id)
    },
    dismissUpload: async (id) => {
      must(uploader.get(id))
      uploader.dismiss(id)
    },
    getUploadSettings: async () => o.settings.get(),
    setUploadSettings: async (s) => o.settings.set(s)
  }
  /** Copies watched (or already decided) by the automatic upload in this process. */
  const watched = new Set<string>()
  const timers = new Set<NodeJS.Timeout>()
  let stopped = false
  const later = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const t = setTimeout(() => {
        timers.delete(t)
        resolve()
      }, ms)
      timers.add(t)
    })

  /** The copy's session on the active service (the session it was recorded for). */
  const sessionOf = async (copy: LocalRecordingView): Promise<string | undefined> => {
    const { client } = await o.active()
    const page = await client.listStreamSessions(copy.streamId, { limit: 20 })
    return page.items.map(toSessionView).find((s) => o.recordings.forSession(s)?.id === copy.id)?.id
  }

  /** Watches a finished copy until the service's recording is final, then decides once. */
  const autoUpload = async (copy: LocalRecordingView): Promise<AutoDecision> => {
    const until = Date.now() + (o.autoGiveUpMs ?? AUTO_GIVE_UP_MS)
    const every = o.autoPollMs ?? AUTO_POLL_MS
    while (!stopped && Date.now() < until) {
      if (!o.settings.get().autoUploadFullCopy) return 'off'
      try {
        const sessionId = await sessionOf(copy)
        const check = sessionId ? await calls.checkRecording(sessionId) : undefined
        if (check && check.verdict.kind !== 'pending') {
          const k = check.verdict.kind
          if (k === 'complete' || check.localRecordingId !== copy.id) return 'complete'
          if (stopped) return 'gave-up'
          if (!o.settings.get().autoUploadFullCopy) return 'off'
          // Once per copy: an upload of it already there (going, done or failed) is the creator's.
          if (uploader.views().some((u) => u.file === copy.file || u.sessionId === sessionId))
            return 'already-uploaded'
          o.log?.(`uploads: the ${k} recording of session ${sessionId}: uploading the full copy`)
          await calls.publishLocalCopy({ localRecordingId: copy.id, sessionId })
          return 'uploaded'
        }
      } catch (e) {
        o.log?.(`uploads: checking the recording of ${copy.file}: ${(e as Error).message}`)
      }
      await later(every)
    }
    return 'gave-up'
  }

  const copyChanged = async (copy: LocalRecordingView): Promise<AutoDecision> => {
    if (stopped || copy.state === 'recording' || copy.durationSec === undefined)
      return 'not-finished'
    if (copy.moreFiles?.length) return 'not-finished'
    if (watched.has(copy.id)) return 'already-watched'
    if (!o.settings.get().autoUploadFullCopy) return 'off'
    watched.add(copy.id)
    const decided = await autoUpload(copy)
    if (decided === 'off') watched.delete(copy.id)
    return decided
  }

  return {
    calls,
    copyChanged,
    stop: async () => {
      stopped = true
      for (const t of timers) clearTimeout(t)
      await uploader.stop()
    }
  }
}
