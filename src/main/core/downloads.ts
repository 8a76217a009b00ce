// What the app saves from the service: a recorded session's MP4, or one rendition of it (remuxed
// from its playlist by rendition-downloads.ts once the shell knows where the file goes), and a
// clip's MP4. Each answers the URL and the file name (download-name.ts) the shell saves.
import type { ClipFailure, OnairCalls } from '../../shared/contract'
import { AppFailure } from '../../shared/result'
import type { ApiClient } from './api-client'
import { recordingFileName } from './download-name'
import type { RenditionDownloads } from './rendition-downloads'
import { toClipView, toSessionView } from './view-models'

/** Why a clip failed, for the save call's failure: the service's words, else what it says the clip is. */
const failedWhy = (f: ClipFailure | undefined): string =>
  f?.kind === 'service'
    ? f.message.replace(/[.\s]+$/, '')
    : `the service says it is ${f?.kind === 'phase' ? f.phase : 'gone'}`

export function downloadCalls(
  client: () => Promise<ApiClient>,
  renditions: RenditionDownloads
): Pick<OnairCalls, 'downloadRecording' | 'downloadClip'> {
  return {
    async downloadRecording(sessionId, rendition) {
      const s = toSessionView(await (await client()).getSession(sessionId))
      if (rendition !== undefined) return renditions.prepare(s, rendition)
      if (!s.mp4Url || s.recordingStatus !== 'ready')
        throw new AppFailure({
          code: 'not-found',
          message: 'This session has no MP4 to save yet.',
          hint: 'Wait until its recording is ready, then try again.'
        })
      return { url: s.mp4Url, filename: recordingFileName(s.name, s.createdAt), format: 'mp4' }
    },
    // The call's failure names the cause (the clips' screens word a clip's state: clip-text.ts).
    async downloadClip(id) {
      const clip = toClipView(await (await client()).getAsset(id))
      if (clip.state !== 'ready' || !clip.downloadUrl)
        throw new AppFailure({
          code: 'not-found',
          message:
            clip.state === 'failed'
              ? `This clip failed: ${failedWhy(clip.failure)}.`
              : 'This clip has no MP4 to save yet.',
          hint: clip.state === 'failed' ? 'Make the clip again.' : 'Wait until it is ready.'
        })
      return {
        url: clip.downloadUrl,
        filename: recordingFileName(clip.name, clip.createdAt),
        format: 'mp4'
      }
    }
  }
}
