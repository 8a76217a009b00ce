// What a session row says of the service's recording against its local copy, and of an upload.
import { describe, expect, it } from 'vitest'
import {
  uploadProblemText,
  uploadText,
  verdictText
} from '../../../src/renderer/src/features/sessions/upload-words'
import type { UploadView } from '../../../src/shared/uploads'

const MB = 1e6
const up = (over: Partial<UploadView>): UploadView => ({
  id: 'u1',
  file: '/videos/show.mp4',
  name: 'show',
  connectionId: 'c1',
  size: 200 * MB,
  sent: 90 * MB,
  state: 'uploading',
  startedAt: 0,
  updatedAt: 0,
  ...over
})

describe('verdictText', () => {
  it('says how much of the broadcast the service recorded, in the connection’s name', () => {
    expect(verdictText({ kind: 'short', recordedSec: 6250, localSec: 10_975 }, 'Livepeer')).toBe(
      'Livepeer recorded 1:44:10 of 3:02:55'
    )
    expect(verdictText({ kind: 'missing' }, 'My studio')).toBe(
      'My studio has no recording of this broadcast'
    )
    expect(verdictText({ kind: 'failed' }, 'Livepeer')).toBe(
      "Livepeer's recording of this broadcast failed"
    )
    expect(verdictText({ kind: 'complete' }, 'Livepeer')).toBeUndefined()
    expect(verdictText({ kind: 'pending' }, 'Livepeer')).toBeUndefined()
  })
})

describe('uploadText', () => {
  it('gives bytes, rate and time left while uploading', () => {
    expect(uploadText(up({ rate: 12 * MB, etaSec: 42 }), 'Livepeer')).toMatch(
      /^Uploading 45% \(90 MB of 200 MB\), 12 MB\/s, 0:42 left$/
    )
    expect(uploadText(up({}), 'Livepeer')).toMatch(/^Uploading 45% \(/)
  })

  it('names the other states and a failure’s cause', () => {
    expect(uploadText(up({ state: 'paused' }), 'Livepeer')).toBe('Paused at 45%')
    expect(uploadText(up({ state: 'processing' }), 'Livepeer')).toBe(
      'Uploaded; Livepeer is processing the video'
    )
    expect(uploadText(up({ state: 'ready' }), 'Livepeer')).toBe('Published on Livepeer')
    expect(
      uploadText(
        up({ state: 'failed', error: { kind: 'said', message: 'the disk is full' } }),
        'Livepeer'
      )
    ).toBe('Upload failed: the disk is full')
  })

  it('says why an upload stopped, from the state main sends (core/upload-problems.test.ts)', () => {
    const lost = { kind: 'connection-lost', detail: 'connect ECONNREFUSED 10.0.0.1:443' } as const
    expect(uploadText(up({ state: 'paused', error: lost }), 'Livepeer')).toBe(
      'Paused at 45%: The connection to Livepeer was lost: connect ECONNREFUSED 10.0.0.1:443'
    )
    const failed = (error: UploadView['error']): string =>
      uploadText(up({ state: 'failed', ...(error ? { error } : {}) }), 'Livepeer')
    expect(failed({ kind: 'file-gone' })).toBe(
      'Upload failed: The file is not there any more: /videos/show.mp4'
    )
    expect(failed({ kind: 'file-changed' })).toBe(
      'Upload failed: The file changed since its upload began: upload it again.'
    )
    expect(failed({ kind: 'refused', status: 403, message: 'storage is full' })).toBe(
      'Upload failed: storage is full (HTTP 403)'
    )
    expect(failed({ kind: 'refused', status: 502 })).toBe(
      'Upload failed: Livepeer answered HTTP 502'
    )
    expect(failed({ kind: 'processing-failed', message: 'no video track.' })).toBe(
      'Upload failed: Livepeer could not process the video: no video track'
    )
    expect(failed({ kind: 'processing-failed' })).toBe(
      'Upload failed: Livepeer could not process the video: it gave no reason'
    )
    expect(failed(undefined)).toBe('Upload failed: no reason given')
    expect(uploadProblemText({ kind: 'said', message: 'Disk full.' }, '/a.mp4', 'Livepeer')).toBe(
      'Disk full.'
    )
  })
})
