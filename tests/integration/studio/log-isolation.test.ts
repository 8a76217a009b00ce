// Two studios in one process, as the tests run them: node-media-server's logger is one object for
// the whole process, yet each studio's log gets the lines of its own RTMP connections only
// (redacted), never the other studio's. Real ffmpeg publishes (lavfi test pattern) to both.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  pushTestPattern,
  startTestStudio,
  studioCalls,
  type TestStudio
} from '../../helpers/studio'
import { waitUntil } from '../../helpers/wait-until'

let a: TestStudio
let b: TestStudio

beforeAll(async () => {
  a = await startTestStudio()
  b = await startTestStudio()
})
afterAll(async () => {
  await Promise.all([a?.cleanup(), b?.cleanup()])
})

const text = (s: TestStudio): string => s.logLines().join('\n')
/** NMS's publish lines: "RTMP session <id> <client ip:port> start push /live/****". */
const pushIds = (s: TestStudio): string[] =>
  s
    .logLines()
    .map((l) => /RTMP session (\w+) \S+ start push \/live\/\*{4}$/.exec(l)?.[1])
    .filter((id): id is string => id !== undefined)
/** Every NMS session a studio's log names (its publishers, its own puller, refused clients). */
const nmsIds = (s: TestStudio): string[] => [
  ...new Set([...text(s).matchAll(/RTMP session (\w+)/g)].map((m) => m[1]!))
]
const invalidPathLines = (s: TestStudio): string[] =>
  s.logLines().filter((l) => l.includes('invalid stream path characters'))

describe('two studios in one process', () => {
  it("each studio's log has its own publish and nothing of the other's", async () => {
    const [streamA, streamB] = await Promise.all([
      studioCalls(a).createStream({ name: 'studio-a' }),
      studioCalls(b).createStream({ name: 'studio-b' })
    ])
    const opts = { seconds: 3, width: 320, height: 240 }
    const pushA = pushTestPattern(`${a.rtmpUrl}/${streamA.streamKey}`, opts)
    const pushB = pushTestPattern(`${b.rtmpUrl}/${streamB.streamKey}`, opts)
    expect(await pushA.done).toBe(0)
    expect(await pushB.done).toBe(0)
    // A clean stop finalizes the session at once; NMS says the publisher's socket closed.
    for (const [studio, stream] of [
      [a, streamA],
      [b, streamB]
    ] as const) {
      await waitUntil(
        () =>
          /live: session \S+ finished/.test(text(studio)) &&
          pushIds(studio).some((id) => text(studio).includes(`RTMP session ${id} close`)),
        `studio ${stream.name} to log the end of its publish`
      )
    }

    // Exactly one NMS publish line each: its own (a shared logger would give one of them both).
    expect(pushIds(a)).toHaveLength(1)
    expect(pushIds(b)).toHaveLength(1)
    expect(text(a)).toContain(`live: stream ${streamA.id} started session`)
    expect(text(b)).toContain(`live: stream ${streamB.id} started session`)
    // Its puller played its stream through its own port: NMS's play line is in its own log.
    expect(text(a)).toMatch(/RTMP session \w+ \S+ start play \/live\/\*{4}/)
    expect(text(b)).toMatch(/RTMP session \w+ \S+ start play \/live\/\*{4}/)

    // Nothing of the other studio: not its stream, not one of its NMS sessions.
    expect(text(a)).not.toContain(streamB.id)
    expect(text(b)).not.toContain(streamA.id)
    const idsA = nmsIds(a)
    const idsB = nmsIds(b)
    expect(idsA.length).toBeGreaterThanOrEqual(2)
    expect(idsB.length).toBeGreaterThanOrEqual(2)
    for (const id of idsA) expect(text(b)).not.toContain(id)
    for (const id of idsB) expect(text(a)).not.toContain(id)

    // NMS's lines are redacted like the studio's own.
    for (const key of [streamA.streamKey, streamB.streamKey]) {
      expect(text(a)).not.toContain(key)
      expect(text(b)).not.toContain(key)
    }
  })

  it('an NMS protocol error goes to the studio whose port it came in on, redacted', async () => {
    // NMS itself refuses these paths (it logs the raw app and name) before any studio sees them.
    const toA = pushTestPattern(`${a.rtmpUrl}/not.a.key-for-a`, {
      seconds: 2,
      width: 160,
      height: 120
    })
    expect(await toA.done).not.toBe(0)
    await waitUntil(() => invalidPathLines(a).length === 1, "studio A to log NMS's refusal")
    const toB = pushTestPattern(`${b.rtmpUrl}/not.a.key-for-b`, {
      seconds: 2,
      width: 160,
      height: 120
    })
    expect(await toB.done).not.toBe(0)
    await waitUntil(() => invalidPathLines(b).length === 1, "studio B to log NMS's refusal")

    // One each, not one to both and not both to the studio started last.
    expect(invalidPathLines(a)).toHaveLength(1)
    expect(invalidPathLines(a)[0]).toMatch(/^ingest: error: RTMP session \w+ .*app=\*{4}$/)
    expect(invalidPathLines(b)).toHaveLength(1)
    for (const name of ['not.a.key', 'key-for-a', 'key-for-b']) {
      expect(text(a)).not.toContain(name)
      expect(text(b)).not.toContain(name)
    }
  })
})
