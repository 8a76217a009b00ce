// The contract's upload calls (#35) on top of the uploader: "Publish as a video" of a local copy,
// "Upload the full copy" of a session whose service recording is missing, failed or short, and the
// comparison that decides it. Uploads belong to the connection they were started on.
import { existsSync } from 'node:fs'
import type { OnairCalls } from '../../../shared/contract'
import { AppFailure } from '../../../shared/result'
import { compareRecording, type RecordingCheck, type UploadView } from '../../../shared/uploads'
import type { ApiClient } from '../api-client'
import type { ActiveService } from '../connections'
import { recordingFileName } from '../download-name'
import { sharedTransport } from '../http-transport'
import type { LocalRecordings } from '../local-recording/recordings'
import { toSessionView } from '../views'
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
>

export interface UploadsOptions {
  appDataDir: string
  active: () => Promise<ActiveService>
  recordings: LocalRecordings
  emit: (v: UploadView) => void
  log?: (line: string) => void
}

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

export function uploadCalls(o: UploadsOptions): { calls: UploadCalls; stop(): Promise<void> } {
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
    }
  }
  return { calls, stop: () => uploader.stop() }
}
