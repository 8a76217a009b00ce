// The ingest against hostile bytes, as a local program could send them before any authentication:
// random bytes on the RTMP port (raw, and wrapped in an HTTP POST), idle connections by the
// thousand, a pathological Authorization header, bad percent-encoding. The studio runs as its own
// process (the CLI) under a descriptor limit of 1,024, so its memory and descriptors are its own.
import { randomBytes } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { request } from 'node:http'
import { connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, pushTestPattern, waitFor, type Pusher } from '../../helpers/studio'
import {
  killCliStudios,
  rssMb,
  runCli,
  type CliReady,
  type CliStudio
} from '../../helpers/studio-cli'

const NOFILE = 1024
const HOSTILE_BYTES = 64 * 1024

let dataDir = ''
let cli: CliStudio | undefined
let ready: CliReady
let key = ''
let streamId = ''
let streamKey = ''
const studio = (): { apiUrl: string } => ({ apiUrl: ready.api })
const rtmpPort = (): number => Number(new URL(ready.rtmp).port)
const apiPort = (): number => Number(new URL(ready.api).port)

/** A studio of its own (the CLI, under the lowered limit) with one stream, in a new data dir. */
async function startStudio(): Promise<void> {
  if (cli) {
    cli.child.kill('SIGKILL')
    await cli.exit
  }
  if (dataDir) await rm(dataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 })
  dataDir = await mkdtemp(join(tmpdir(), 'onair-hostile-'))
  cli = runCli(['--data', dataDir, '--resume-window', '0'], { nofile: NOFILE })
  ready = await cli.ready
  key = ready.apiKey!
  const s = await api<{ id: string; streamKey: string }>(studio(), key, 'POST', '/stream', {
    name: 'hostile'
  })
  streamId = s.body.id
  streamKey = s.body.streamKey
}

beforeAll(startStudio, 60_000)

afterAll(async () => {
  killCliStudios()
  if (dataDir) await rm(dataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 })
})

/** One request on a connection of its own; resolves with status, body and ms. */
function raw(
  path: string,
  headers: Record<string, string>
): Promise<{ status: number; body: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now()
    const req = request(
      { host: '127.0.0.1', port: apiPort(), path, headers, agent: false, timeout: 5000 },
      (res) => {
        let body = ''
        res.setEncoding('utf8').on('data', (c: string) => (body += c))
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body, ms: performance.now() - t0 })
        )
      }
    )
    req.on('timeout', () => req.destroy(new Error('no answer within 5 s')))
    req.on('error', reject)
    req.end()
  })
}

/**
 * One API call's time in ms, on a new connection as a new client would make (Infinity when it got
 * no answer within 5 s or failed).
 */
async function apiLatency(): Promise<{ ms: number; status: number }> {
  try {
    const r = await raw('/api/stream?limit=1', { authorization: `Bearer ${key}` })
    return { ms: r.ms, status: r.status }
  } catch {
    return { ms: Infinity, status: 0 }
  }
}

/**
 * Opens `n` connections to the RTMP port, each writing payload(i) at once. Resolves with how many
 * the studio has closed once all are, or after `timeoutMs`; meanwhile samples the studio's RSS and
 * times an API call every 50 ms.
 */
async function flood(
  n: number,
  payload: (i: number) => Buffer,
  timeoutMs: number
): Promise<{ closedByStudio: number; maxRssMb: number; maxApiMs: number; apiFailures: number }> {
  let closed = 0
  const sockets: Socket[] = []
  for (let i = 0; i < n; i++) {
    const s = connect(rtmpPort(), '127.0.0.1')
    s.on('error', () => {})
    s.on('connect', () => s.write(payload(i)))
    s.on('close', () => closed++)
    s.resume()
    sockets.push(s)
  }
  let maxRssMb = 0
  let maxApiMs = 0
  let apiFailures = 0
  const until = Date.now() + timeoutMs
  while (closed < n && Date.now() < until) {
    maxRssMb = Math.max(maxRssMb, rssMb(cli!.child.pid!))
    const t = await apiLatency()
    if (t.status !== 200) apiFailures++
    maxApiMs = Math.max(maxApiMs, t.ms)
    await new Promise((r) => setTimeout(r, 50))
  }
  maxRssMb = Math.max(maxRssMb, rssMb(cli!.child.pid!))
  const closedByStudio = closed
  for (const s of sockets) s.destroy()
  return { closedByStudio, maxRssMb, maxApiMs, apiFailures }
}

const isActive = async (): Promise<boolean> =>
  (await api<{ isActive: boolean }>(studio(), key, 'GET', `/stream/${streamId}`)).body.isActive

/**
 * A real ffmpeg publish that the studio takes within `withinMs` (a push refused while the
 * connection cap is full is tried again), then stopped; resolves with the ms it took.
 */
async function publishWithin(withinMs: number): Promise<number> {
  const t0 = Date.now()
  let push: Pusher | undefined
  let exited = true
  const start = (): void => {
    push = pushTestPattern(`${ready.rtmp}/${streamKey}`, {
      seconds: 30,
      width: 320,
      height: 240,
      fps: 15,
      audio: false
    })
    exited = false
    void push.done.then(() => (exited = true))
  }
  try {
    await waitFor(
      async () => {
        if (exited) start()
        return isActive()
      },
      withinMs,
      'a valid publish to be taken',
      250
    )
    return Date.now() - t0
  } finally {
    await push?.kill()
    await waitFor(async () => !(await isActive()), 15_000, 'the stream to end')
  }
}

describe('the ingest survives hostile bytes', () => {
  it('60 connections of random bytes: the studio stays small, answers, and takes a publish after', async () => {
    const before = rssMb(cli!.child.pid!)
    // The version byte a real client sends first, then random bytes: past the first check, into
    // the chunk parser, where each random header declares a message length of up to 16 MiB.
    const r = await flood(
      60,
      () => Buffer.concat([Buffer.from([3]), randomBytes(HOSTILE_BYTES)]),
      20_000
    )
    console.log(
      `random bytes: RSS ${before.toFixed(0)} MB before, ${r.maxRssMb.toFixed(0)} MB at most; ` +
        `slowest API call ${r.maxApiMs.toFixed(0)} ms; ${r.closedByStudio}/60 closed by the studio`
    )
    expect(r.maxRssMb).toBeLessThan(300)
    expect(r.apiFailures).toBe(0)
    expect(r.maxApiMs).toBeLessThan(1000)
    expect(r.closedByStudio).toBe(60)
    const took = await publishWithin(15_000)
    console.log(`random bytes: a publish was taken ${took} ms after`)
  }, 90_000)

  it('the same bytes wrapped in an HTTP POST to the RTMP port', async () => {
    const before = rssMb(cli!.child.pid!)
    const r = await flood(
      60,
      () =>
        Buffer.concat([
          Buffer.from(
            `POST / HTTP/1.1\r\nHost: 127.0.0.1:${rtmpPort()}\r\n` +
              `Content-Type: text/plain\r\nContent-Length: ${HOSTILE_BYTES}\r\n\r\n`
          ),
          randomBytes(HOSTILE_BYTES)
        ]),
      20_000
    )
    console.log(
      `HTTP-wrapped: RSS ${before.toFixed(0)} MB before, ${r.maxRssMb.toFixed(0)} MB at most; ` +
        `slowest API call ${r.maxApiMs.toFixed(0)} ms; ${r.closedByStudio}/60 closed by the studio`
    )
    expect(r.maxRssMb).toBeLessThan(300)
    expect(r.apiFailures).toBe(0)
    expect(r.maxApiMs).toBeLessThan(1000)
    expect(r.closedByStudio).toBe(60)
    await publishWithin(15_000)
  }, 90_000)

})

describe('idle connections', () => {
  // A fresh studio: what the floods above left (freed memory, closed sockets) is not its history.
  beforeAll(startStudio, 60_000)

  it(`1,100 idle connections under a limit of ${NOFILE} descriptors: the API answers, a publish is taken within 15 s`, async () => {
    const t0 = Date.now()
    const idle: Socket[] = []
    let settled = 0
    for (let i = 0; i < 1100; i++) {
      const s = connect(rtmpPort(), '127.0.0.1')
      let answered = false
      const settle = (): void => {
        if (!answered) settled++
        answered = true
      }
      s.on('error', () => {})
      s.once('connect', settle)
      s.once('close', settle)
      idle.push(s)
    }
    // A new client asks the API every 200 ms, from the first idle connection to the publish.
    const probe = { on: true, calls: 0, failures: 0, maxMs: 0 }
    const probing = (async () => {
      while (probe.on) {
        const t = await apiLatency()
        probe.calls++
        if (t.status !== 200) probe.failures++
        else probe.maxMs = Math.max(probe.maxMs, t.ms)
        await new Promise((r) => setTimeout(r, 200))
      }
    })()
    try {
      // Every attempt has been answered (taken, or closed at the door).
      await waitFor(async () => settled >= 1100, 10_000, 'the connection attempts', 50)
      const settledMs = Date.now() - t0
      const published = await publishWithin(15_000 - settledMs).then(
        () => `taken ${Date.now() - t0} ms after the 1,100 connections began`,
        (e: Error) => e
      )
      probe.on = false
      await probing
      console.log(
        `idle: all answered after ${settledMs} ms; ${probe.calls} API calls on new connections, ` +
          `${probe.failures} failed, slowest ${probe.maxMs.toFixed(0)} ms; publish ${published}`
      )
      expect(probe.failures).toBe(0)
      expect(probe.maxMs).toBeLessThan(1000)
      expect(published).not.toBeInstanceOf(Error)
    } finally {
      probe.on = false
      await probing
      for (const s of idle) s.destroy()
    }
  }, 90_000)
})

describe('the HTTP side', () => {
  it('an Authorization header of 15,500 spaces takes no time to refuse', async () => {
    // Each request on a new connection; the slow header's requests alternate with a plain wrong
    // key's, and the difference of their medians is the time the header itself costs the server.
    const slow = `Bearer a${' '.repeat(15_500)}b`
    const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!
    const slowMs: number[] = []
    const plainMs: number[] = []
    for (let i = 0; i < 40; i++) {
      const r = await raw('/api/stream', { authorization: slow })
      expect(r.status).toBeGreaterThanOrEqual(400)
      expect(r.status).toBeLessThan(500)
      expect(JSON.parse(r.body)).toMatchObject({ errors: [expect.any(String)] })
      slowMs.push(r.ms)
      plainMs.push((await raw('/api/stream', { authorization: 'Bearer not-a-key' })).ms)
    }
    const cost = median(slowMs) - median(plainMs)
    console.log(
      `slow header: median ${median(slowMs).toFixed(2)} ms a request, a plain wrong key ` +
        `${median(plainMs).toFixed(2)} ms: the header costs ${cost.toFixed(2)} ms`
    )
    expect(cost).toBeLessThan(5)
  })

  it('a header past the size cap is refused with a JSON error', async () => {
    const r = await raw('/api/stream', { 'x-filler': 'x'.repeat(20_000) })
    expect(r.status).toBe(431)
    expect(JSON.parse(r.body)).toMatchObject({ errors: [expect.any(String)] })
  })

  it('bad percent-encoding in the path is a 400, not a 404 or a 500', async () => {
    for (const path of ['/api/stream/%E0%A4%A', '/hls/%E0%A4%A/index.m3u8']) {
      const r = await raw(path, { authorization: `Bearer ${key}` })
      expect([path, r.status]).toEqual([path, 400])
      expect(JSON.parse(r.body)).toMatchObject({ errors: [expect.any(String)] })
    }
  })
})
