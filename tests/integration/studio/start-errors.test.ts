// Start failures name their cause: a port in use (API or RTMP) and a data dir that cannot be
// written. The CLI turns them into distinct exit codes, never a silent exit.
import { spawn } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startStudio, StudioStartError } from '../../../src/studio/index'
import { testFfmpeg } from '../../helpers/studio'

let blocker: Server
let busyPort = 0
let dir = ''

beforeAll(async () => {
  testFfmpeg()
  dir = await mkdtemp(join(tmpdir(), 'onair-start-'))
  blocker = createServer()
  await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()))
  busyPort = (blocker.address() as { port: number }).port
})
afterAll(async () => {
  await new Promise<void>((r) => blocker.close(() => r()))
  await rm(dir, { recursive: true, force: true })
})

async function startError(opts: Parameters<typeof startStudio>[0]): Promise<StudioStartError> {
  try {
    const s = await startStudio(opts)
    await s.stop()
  } catch (err) {
    return err as StudioStartError
  }
  throw new Error('the studio started')
}

function cli(args: string[]): Promise<{ code: number | null; stderr: string; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/studio/cli.ts', ...args], {
      stdio: ['ignore', 'pipe', 'pipe']
    })
    let stderr = ''
    let stdout = ''
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()))
    child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()))
    child.on('exit', (code) => resolve({ code, stderr, stdout }))
  })
}

describe('studio start errors', () => {
  it('a busy API port is a clear error, and the process keeps running', async () => {
    const err = await startError({ dataDir: join(dir, 'a'), port: busyPort })
    expect(err).toBeInstanceOf(StudioStartError)
    expect(err.code).toBe('EADDRINUSE')
    expect(err.message).toBe(`API port 127.0.0.1:${busyPort} is already in use`)
  })

  it('a busy RTMP port is a clear error (node-media-server would have exited the process)', async () => {
    const err = await startError({ dataDir: join(dir, 'b'), rtmpPort: busyPort })
    expect(err.code).toBe('EADDRINUSE')
    expect(err.message).toBe(`RTMP port 127.0.0.1:${busyPort} is already in use`)
    // The failed start left no user behind: the next start still makes the first key.
    const ok = await startStudio({ dataDir: join(dir, 'b') })
    expect(ok.apiKey).toBeDefined()
    await ok.stop()
  })

  it('a data dir that cannot be written is named with its cause', async () => {
    const file = join(dir, 'not-a-dir')
    await writeFile(file, 'x')
    const err = await startError({ dataDir: join(file, 'studio') })
    expect(err.message).toContain(`data directory ${join(file, 'studio')} is not writable`)
    expect(err.message).toMatch(/ENOTDIR|EEXIST/)
  })

  it('the CLI exits 2 on a busy port, 3 on an unwritable data dir, 64 on bad arguments', async () => {
    const busy = await cli(['--data', join(dir, 'c'), '--rtmp-port', String(busyPort)])
    expect(busy.code).toBe(2)
    expect(busy.stderr).toContain('is already in use')
    expect(busy.stdout).toBe('')
    const ro = await cli(['--data', join(dir, 'not-a-dir', 'x')])
    expect(ro.code).toBe(3)
    expect(ro.stderr).toContain('is not writable')
    const bad = await cli(['--port', 'http'])
    expect(bad.code).toBe(64)
    expect(bad.stderr).toContain('--port needs a port number')
  })

  it('keys create prints a new key for a named user', async () => {
    const res = await cli(['keys', 'create', '--data', join(dir, 'd'), '--user', 'alice'])
    expect(res.code).toBe(0)
    expect(res.stdout.trim()).toMatch(/^[0-9a-f-]{36}$/)
  })
})
