// Multistream forwarding over real RTMP on 127.0.0.1: a second local studio is the target. A live
// session on the first is pushed to it (the chosen rendition, copied); targets added, disabled and
// removed while live start and stop only their own forwarder; a target that refuses the key and a
// target whose server dies mid-broadcast are retried and named in the stream's issues, while the
// session and its recording carry on whole; the returned server is live again within 10 s. No
// target key ever appears in a log line or an answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  api,
  decodeAll,
  ffprobe,
  pushTestPattern,
  startTestStudio,
  studioCalls,
  waitFor,
  type StudioStream,
  type TestStudio
} from '../../helpers/studio'

type Stream = StudioStream & { isHealthy: boolean | null; issues: string[] | null }
interface Target {
  id: string
  name: string
}

// The first studio's ladder: two light renditions (the machine is shared), the source pushed at
// 854x480, so each rendition's size tells which one reached the target.
const LADDER = [
  { name: '360p', width: 640, height: 360, bitrate: 600_000, fps: 30 },
  { name: '240p', width: 426, height: 240, bitrate: 300_000, fps: 30 }
]

let a: TestStudio
let b: TestStudio
/** Every answer body seen, scanned for keys at the end. */
const answers: string[] = []
const secretKeys: string[] = []

async function call<T>(s: TestStudio, method: string, path: string, body?: unknown): Promise<T> {
  const res = await api<T>(s, s.apiKey, method, path, body)
  // B's own answers carry B's stream keys (that is its job); A must never echo a target's.
  if (s === a) answers.push(JSON.stringify(res.body ?? null))
  if (res.status >= 300)
    throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body
}
const getStream = (s: TestStudio, id: string): Promise<Stream> =>
  call<Stream>(s, 'GET', `/stream/${id}`)
const rtmpPort = (s: TestStudio): number => Number(new URL(s.rtmpUrl).port)
const hlsUrl = (s: TestStudio, playbackId: string): string =>
  `${s.apiUrl.replace(/\/api$/, '')}/hls/${playbackId}/index.m3u8`

/** A stream on studio B to receive a push; its key goes into a target URL on A. */
async function receiver(name: string): Promise<StudioStream> {
  const s = await call<StudioStream>(b, 'POST', '/stream', { name })
  secretKeys.push(s.streamKey)
  return s
}
const targetUrl = (key: string): string => `rtmp://127.0.0.1:${rtmpPort(b)}/live/${key}`

beforeAll(async () => {
  a = await startTestStudio()
  b = await startTestStudio()
})
afterAll(async () => {
  await a?.cleanup()
  await b?.cleanup()
  // No key of a target in any log line of either studio, or in any answer.
  const text = [...answers, ...(a?.logLines() ?? []), ...(b?.logLines() ?? [])].join('\n')
  for (const k of secretKeys) expect(text).not.toContain(k)
})

describe('multistream forwarding', () => {
  it('pushes the chosen rendition; live changes start and stop only the targets concerned', async () => {
    const r360 = await receiver('gets 360p')
    const rSource = await receiver('gets the source, video only')
    const t360 = await call<Target>(a, 'POST', '/multistream/target', {
      name: 'B 360p',
      url: targetUrl(r360.streamKey)
    })
    const stream = await call<Stream>(a, 'POST', '/stream', {
      name: 'multistreamed',
      profiles: LADDER,
      record: true,
      multistream: { targets: [{ id: t360.id, profile: '360p' }] }
    })
    const push = pushTestPattern(`${a.rtmpUrl}/${stream.streamKey}`, {
      seconds: 90,
      width: 854,
      height: 480
    })
    try {
      // B gets a live session of exactly the 360p rendition.
      await waitFor(async () => (await getStream(b, r360.id)).isActive, 30_000, 'B live (360p)')
      await waitFor(
        async () => (await fetch(hlsUrl(b, r360.playbackId))).status === 200,
        20_000,
        "B's HLS"
      )
      const probe = await ffprobe(hlsUrl(b, r360.playbackId))
      const video = probe.streams.find((s) => s.codec_type === 'video')!
      expect([video.width, video.height]).toEqual([640, 360])
      expect(probe.streams.some((s) => s.codec_type === 'audio')).toBe(true)
      // The target is starting until 1.5 s of media reached it (its own line, no trouble), then live.
      await waitFor(
        async () => (await getStream(a, stream.id)).issues?.length === 0,
        10_000,
        'the 360p target live'
      )
      const live = await getStream(a, stream.id)
      expect([live.isActive, live.isHealthy, live.issues]).toEqual([true, true, []])

      // Added while live: the source, video only. The 360p forwarder keeps running.
      const added = await call<Target>(
        a,
        'POST',
        `/stream/${stream.id}/create-multistream-target`,
        {
          profile: 'source',
          videoOnly: true,
          spec: { name: 'B source', url: targetUrl(rSource.streamKey) }
        }
      )
      await waitFor(
        async () => (await getStream(b, rSource.id)).isActive,
        30_000,
        'B live (source)'
      )
      await waitFor(
        async () => (await fetch(hlsUrl(b, rSource.playbackId))).status === 200,
        20_000,
        "B's source HLS"
      )
      const src = await ffprobe(hlsUrl(b, rSource.playbackId))
      expect(src.streams.find((s) => s.codec_type === 'video')).toMatchObject({
        width: 854,
        height: 480
      })
      expect(src.streams.some((s) => s.codec_type === 'audio')).toBe(false)

      // Disabled: only that forwarder stops (B's session ends cleanly); enabled: it is back.
      const r360Session = await call<Array<{ id: string }>>(b, 'GET', `/stream/${r360.id}/sessions`)
      await call(a, 'PATCH', `/multistream/target/${added.id}`, { disabled: true })
      await waitFor(async () => !(await getStream(b, rSource.id)).isActive, 20_000, 'source off')
      expect((await getStream(b, r360.id)).isActive).toBe(true)
      await call(a, 'PATCH', `/multistream/target/${added.id}`, { disabled: false })
      await waitFor(async () => (await getStream(b, rSource.id)).isActive, 30_000, 'source on')
      // Removed from the stream: it stops; the 360p target's session on B was never interrupted.
      await call(a, 'DELETE', `/stream/${stream.id}/multistream/${added.id}`)
      await waitFor(async () => !(await getStream(b, rSource.id)).isActive, 20_000, 'source gone')
      const after = await call<Array<{ id: string }>>(b, 'GET', `/stream/${r360.id}/sessions`)
      expect(after.map((s) => s.id)).toEqual(r360Session.map((s) => s.id))
      expect((await getStream(b, r360.id)).isActive).toBe(true)
    } finally {
      await push.kill()
    }
    // The publisher left: the forwarders went with it.
    await waitFor(async () => !(await getStream(b, r360.id)).isActive, 20_000, 'B idle')
    const ended = await getStream(a, stream.id)
    expect([ended.isHealthy, ended.issues]).toEqual([null, null])
  })

  it('a refused key and a dead server are retried and named; the session and recording stay whole', async () => {
    const good = await receiver('survives a restart')
    const wrongKey = 'zzzz-wrong-key0-nope'
    secretKeys.push(wrongKey)
    const tGood = await call<Target>(a, 'POST', '/multistream/target', {
      name: 'restarting',
      url: targetUrl(good.streamKey)
    })
    // No name: the issue names it by the URL's host.
    const tWrong = await call<Target>(a, 'POST', '/multistream/target', {
      url: targetUrl(wrongKey)
    })
    const stream = await call<Stream>(a, 'POST', '/stream', {
      name: 'resilient',
      profiles: LADDER,
      record: true,
      multistream: {
        targets: [
          { id: tGood.id, profile: '240p' },
          { id: tWrong.id, profile: 'source' }
        ]
      }
    })
    const pushed = 40
    const t0 = Date.now()
    const push = pushTestPattern(`${a.rtmpUrl}/${stream.streamKey}`, {
      seconds: pushed,
      width: 854,
      height: 480
    })
    const issuesOf = async (): Promise<string[]> => (await getStream(a, stream.id)).issues ?? []
    const refused = `Multistream target "127.0.0.1:${rtmpPort(b)}" (${tWrong.id}) is retrying: the server rejected the stream key`
    await waitFor(async () => (await issuesOf()).includes(refused), 30_000, 'the refused key issue')
    await waitFor(async () => (await getStream(b, good.id)).isActive, 30_000, 'B live')
    // The good target is starting until 1.5 s of media reached B, then live: its line goes.
    await waitFor(
      async () => !(await issuesOf()).some((i) => i.includes(tGood.id)),
      10_000,
      'the good target live'
    )
    let s = await getStream(a, stream.id)
    expect(s.isHealthy).toBe(false)
    expect(s.issues).toEqual([refused])

    // B's RTMP server dies mid-broadcast.
    await b.stopIngest()
    const goodIssue = new RegExp(
      `^Multistream target "restarting" \\(${tGood.id}\\) is retrying: (connection lost|connection refused)$`
    )
    await waitFor(
      async () => (await issuesOf()).some((i) => goodIssue.test(i)),
      20_000,
      'the dead server issue'
    )
    // It stays down a few seconds (several retries), the session on A goes on.
    await waitFor(
      async () =>
        (await issuesOf()).includes(
          `Multistream target "restarting" (${tGood.id}) is retrying: connection refused`
        ),
      20_000,
      'connection refused while down'
    )
    expect((await getStream(a, stream.id)).isActive).toBe(true)

    // Back on the same port: live again, and its issue clears (generous bounds: a retry is due
    // within the backoff's cap).
    await b.startIngest()
    await waitFor(async () => (await getStream(b, good.id)).isActive, 30_000, 'B live again', 100)
    await waitFor(
      async () => !(await issuesOf()).some((i) => i.includes(tGood.id)),
      30_000,
      'the issue to clear',
      100
    )
    // The wrong-key target met the same dead server ("connection refused"); at its next retry it is
    // refused for its key again, and it is the only issue left.
    await waitFor(
      async () => JSON.stringify(await issuesOf()) === JSON.stringify([refused]),
      15_000,
      'only the refused key left'
    )

    // The push ends; A's recording decodes end to end and lasts as long as what was pushed.
    expect(await push.done).toBe(0)
    const elapsed = (Date.now() - t0) / 1000
    const done = await studioCalls(a).finished(stream.id, 60_000)
    expect(done.recordingStatus).toBe('ready')
    const played = await decodeAll(done.recordingUrl!)
    expect(played.ok).toBe(true)
    expect(played.stderr).toBe('')
    const duration = (await ffprobe(done.recordingUrl!)).duration
    expect(duration).toBeGreaterThan(pushed - 2)
    expect(duration).toBeLessThan(Math.max(pushed, elapsed) + 2)
    // Not live any more: no issues, health unknown again.
    s = await getStream(a, stream.id)
    expect([s.isActive, s.isHealthy, s.issues]).toEqual([false, null, null])
    const lines = a.logLines().filter((l) => l.startsWith('multistream:'))
    expect(lines.some((l) => l.includes(tWrong.id) && l.includes('retrying'))).toBe(true)
  })
})
