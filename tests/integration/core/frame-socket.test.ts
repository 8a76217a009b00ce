// The web shell's frame socket (#33) with the real parts: a real WebSocket client (ws, masking its
// frames as a browser does) sends raw I420 frames and a tone (rawFeeder, as the page packs them) to
// `/frames?runId=`, the core hands them to Onair's encoder process for a recording, and the MP4 it
// finishes holds the frames sent.
// - Every call is answered, in order; the MP4's frame count matches the frames sent.
// - Hostile bytes close the socket with a code and a reason that names what was wrong (a broken
//   raw-media header, a call cut inside a message, text: the contract's own checks, as for a POST),
//   and the shell goes on answering.
// - A run that does not exist is answered with the core's error, then the socket closes.
// - Without the session (or with another site's Origin) the upgrade is refused.
import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { createCore, type Core } from '../../../src/main/core/core'
import { startWebShell, type RunningWebShell } from '../../../src/main/web/web-shell'
import { resolveFfprobe } from '../../../src/node/ffmpeg/locate'
import type { LocalRecordingView } from '../../../src/shared/contract'
import { i420Bytes, packRaw } from '../../../src/shared/raw-media'
import { testFfmpeg } from '../../helpers/studio'
import { waitUntil } from '../../helpers/wait-until'
import { RAW_SOURCE, X264_OUTPUT, rawFeeder } from './raw-media'

const run = promisify(execFile)

const OUTPUT = X264_OUTPUT
const SOURCE = RAW_SOURCE

let dir: string
let core: Core
let shell: RunningWebShell
const copies: LocalRecordingView[] = []

interface Opened {
  ws: WebSocket
  /** The answers (the calls' Results), in order. */
  answers: { ok: boolean; error?: { code: string; message: string } }[]
  closed: Promise<{ code: number; reason: string }>
}

function open(runId: string, headers: Record<string, string> = {}): Promise<Opened> {
  const ws = new WebSocket(`${shell.origin.replace('http', 'ws')}/frames?runId=${runId}`, {
    headers: { authorization: `Bearer ${shell.session}`, ...headers },
    perMessageDeflate: false
  })
  const answers: Opened['answers'] = []
  ws.on('message', (d, binary) => {
    if (!binary) answers.push(JSON.parse(String(d)) as Opened['answers'][number])
  })
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() }))
  )
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ ws, answers, closed }))
    ws.once('error', reject)
  })
}

/** Sends one call and waits for its answer. */
async function call(o: Opened, bytes: Uint8Array): Promise<void> {
  const before = o.answers.length
  o.ws.send(bytes)
  await waitUntil(
    () => o.answers.length > before || o.ws.readyState !== WebSocket.OPEN,
    'an answer',
    10_000
  )
}

const frame = (w = OUTPUT.width, h = OUTPUT.height): Uint8Array =>
  packRaw({ kind: 'video', width: w, height: h, timestampUs: 0 }, new Uint8Array(i420Bytes(w, h)))

beforeAll(async () => {
  testFfmpeg()
  dir = mkdtempSync(join(tmpdir(), 'onair-frames-'))
  const staticDir = join(dir, 'renderer')
  mkdirSync(staticDir, { recursive: true })
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>Onair</title>')
  core = await createCore({
    appDataDir: join(dir, 'data'),
    shell: 'web',
    appVersion: '0.0.0-test',
    recordingsDir: join(dir, 'Videos')
  })
  core.events.on('live:local-recording', (v) => copies.push(v))
  shell = await startWebShell({ core, staticDir })
}, 60_000)

afterAll(async () => {
  await shell?.close()
  await core?.shutdown()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe('the web shell frame socket', () => {
  it('carries raw frames to the encoder: every call answered, the MP4 holds the frames sent', async () => {
    const { recordingId, encoder } = await core.startRecording({ source: SOURCE, output: OUTPUT })
    expect(encoder.kind).toBe('app')
    const o = await open(recordingId)
    const feed = rawFeeder((b) => call(o, b), OUTPUT)
    await waitUntil(() => feed.sent() >= 3 * OUTPUT.fps, '3 s of frames sent', 20_000)
    feed.stop()
    await feed.done
    expect(feed.errors).toEqual([])
    expect(o.answers.length).toBe(feed.sent())
    expect(o.answers.every((a) => a.ok)).toBe(true)
    o.ws.close(1000)
    expect((await o.closed).code).toBe(1000)
    await core.stopRecording(recordingId)
    await waitUntil(
      () => copies.some((c) => c.id === recordingId && c.state === 'saved'),
      'the recording saved',
      60_000
    )
    const file = copies.find((c) => c.id === recordingId && c.state === 'saved')!.file
    const { stdout } = await run(resolveFfprobe(), [
      ...['-v', 'error', '-select_streams', 'v:0', '-count_packets'],
      ...['-show_entries', 'stream=nb_read_packets', '-of', 'csv=p=0', file]
    ])
    const frames = Number(stdout.trim())
    expect(
      Math.abs(frames - feed.sent()),
      `${frames} frames of ${feed.sent()}`
    ).toBeLessThanOrEqual(3)
  }, 90_000)

  it('closes on a broken raw-media header with the reason, and the shell goes on', async () => {
    const o = await open('any-run')
    const bad = frame()
    bad[4] = 9
    o.ws.send(bad)
    const c1 = await o.closed
    expect(c1.code).toBe(1008)
    expect(c1.reason).toMatch(/raw media: unknown kind 9/)
    const huge = frame()
    new DataView(huge.buffer).setUint32(8, 100_000, true)
    const o2 = await open('any-run')
    o2.ws.send(huge)
    expect((await o2.closed).reason).toMatch(/raw video: 100000x360 is not an even size/)
    // A call that ends inside a message; text.
    const o3 = await open('any-run')
    o3.ws.send(frame().subarray(0, 1000))
    const c3 = await o3.closed
    expect(c3.code).toBe(1008)
    expect(c3.reason).toMatch(/raw media: the last message is cut short/)
    const o4 = await open('any-run')
    o4.ws.send('hello')
    expect(await o4.closed).toEqual({
      code: 1003,
      reason: 'the frame socket takes binary messages only'
    })
    expect((await open('any-run')).ws.readyState).toBe(WebSocket.OPEN)
  })

  it("answers a run that does not exist with the core's error, then closes", async () => {
    const o = await open('no-such-run')
    await call(o, frame())
    expect(o.answers[0]).toMatchObject({ ok: false, error: { code: 'not-found' } })
    expect((await o.closed).code).toBe(1008)
  })

  it('refuses the upgrade without the session, or from another Origin', async () => {
    await expect(open('any-run', { authorization: '' })).rejects.toThrow(/401/)
    await expect(open('any-run', { origin: 'http://evil.example' })).rejects.toThrow(/401/)
  })
})
