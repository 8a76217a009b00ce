// Why Onair's encoder process could not start (EncoderHost.start), with real child processes: a
// command that does not exist, a process that exits before it is ready (its last stderr lines), and
// one that refuses the settings in its own words. Main says which as a state (EncoderStartFailure),
// never as its sentence; the live bar and the setup guide word it
// (tests/unit/foundation/encoder-start-text.test.ts).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { EncoderHost, probeEncoders } from '../../../src/main/core/encoder/host'
import type { EncoderConfig } from '../../../src/shared/encoder-channel'

const dir = mkdtempSync(join(tmpdir(), 'onair-encoder-fail-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const config: EncoderConfig = {
  width: 320,
  height: 240,
  fps: 30,
  videoKbps: 800,
  keyframeSec: 2,
  encoder: 'x264',
  preset: 'veryfast',
  bframes: 0
}

const script = (name: string, body: string): string => {
  const file = join(dir, name)
  writeFileSync(file, body)
  return file
}

describe("Onair's encoder that cannot start, as a state", () => {
  it("a command that is not there: spawn-failed, with the OS's words", async () => {
    const host = new EncoderHost({ command: { command: join(dir, 'no-such-encoder'), args: [] } })
    const r = await host.start(config)
    expect(r.ok).toBe(false)
    const f = r.ok ? undefined : r.failure
    expect(f?.kind).toBe('spawn-failed')
    expect(f?.kind === 'spawn-failed' && f.detail).toMatch(/ENOENT/)
  })

  it('a process that exits before it is ready: its exit code and last stderr lines', async () => {
    const file = script(
      'exits.cjs',
      "console.error('first');console.error('no x264 here');process.exit(3)"
    )
    const host = new EncoderHost({ command: { command: process.execPath, args: [file] } })
    const r = await host.start(config)
    expect(r.ok ? undefined : r.failure).toEqual({
      kind: 'exited',
      signal: null,
      code: 3,
      stderr: ['first', 'no x264 here']
    })
  })

  it('a process that refuses the settings: its own words', async () => {
    const file = script(
      'refuses.cjs',
      "process.on('message', () => { process.send({ type: 'failed', reason: 'x264 would not open' }) })"
    )
    const host = new EncoderHost({ command: { command: process.execPath, args: [file] } })
    const r = await host.start(config)
    expect(r.ok ? undefined : r.failure).toEqual({ kind: 'refused', detail: 'x264 would not open' })
    await host.stop()
  })
})

describe('an encoder probe that cannot run, as a state (probeFailure)', () => {
  it("a command that is not there: x264 unavailable, spawn-failed with the OS's words", async () => {
    const list = await probeEncoders({ command: join(dir, 'no-such-prober'), args: [] })
    expect(list.map((e) => [e.id, e.available])).toEqual([['x264', false]])
    const f = list[0]!.probeFailure
    expect(f?.kind).toBe('spawn-failed')
    expect(f?.kind === 'spawn-failed' && f.detail).toMatch(/ENOENT/)
    // A state, not main's sentence.
    expect(list[0]!.reason).toBeUndefined()
  })

  it('a probe that exits with no list: its exit code and last stderr lines', async () => {
    const file = script(
      'probe-exits.cjs',
      "console.log('not json');console.error('a');console.error('b');console.error('libx264 missing');process.exit(2)"
    )
    const list = await probeEncoders({ command: process.execPath, args: [file] })
    expect(list[0]!.probeFailure).toEqual({
      kind: 'exited',
      signal: null,
      code: 2,
      stderr: ['b', 'libx264 missing']
    })
  })
})
