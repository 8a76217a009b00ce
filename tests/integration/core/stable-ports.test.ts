// The local studio keeps its addresses across launches: RTMP 1935 when free (else a port chosen once),
// the API port chosen once, both remembered in the app's settings. A remembered port that another
// program took gives way to a new one, and the status says so.
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createCore } from '../../../src/main/core/core'
import { SettingsStore } from '../../../src/main/core/settings-store'

const dir = mkdtempSync(join(tmpdir(), 'onair-ports-'))
const blockers: Server[] = []
afterAll(async () => {
  for (const b of blockers) await new Promise((r) => b.close(r))
  rmSync(dir, { recursive: true, force: true })
})

async function launch(): Promise<{ api: string; rtmp: string; moved?: unknown }> {
  const core = await createCore({
    appDataDir: dir,
    shell: 'web',
    appVersion: '0.0.0-test',
    keychainService: `onair-ports-${process.pid}`
  })
  try {
    await core.getIngest() // starts the local studio
    const local = (await core.connectionStatus()).local
    expect(local.state).toBe('ready')
    return { api: local.api!, rtmp: local.rtmp!, ...(local.moved ? { moved: local.moved } : {}) }
  } finally {
    await core.shutdown()
  }
}

const portFree = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const s = createServer()
    s.once('error', () => resolve(false))
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)))
  })

const occupy = (port: number): Promise<void> =>
  new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(port, '127.0.0.1', () => {
      blockers.push(s)
      resolve()
    })
  })

describe('stable local addresses', () => {
  it('gives the same API and ingest addresses at every launch, 1935 for RTMP when free', async () => {
    const free1935 = await portFree(1935)
    const first = await launch()
    if (free1935) expect(first.rtmp).toBe('rtmp://127.0.0.1:1935/live')
    expect(first.moved).toBeUndefined()
    const second = await launch()
    const third = await launch()
    expect(second).toEqual(first)
    expect(third).toEqual(first)
    expect(new SettingsStore(dir).get().localPorts).toEqual({
      api: Number(new URL(first.api).port),
      rtmp: Number(new URL(first.rtmp).port || 1935)
    })
  })

  it('takes a new ingest port when the remembered one is taken, says so, and keeps the new one', async () => {
    const before = await launch()
    const port = Number(new URL(before.rtmp).port || 1935)
    await occupy(port)
    const after = await launch()
    expect(after.api).toBe(before.api)
    expect(after.rtmp).not.toBe(before.rtmp)
    expect(after.moved).toEqual([{ what: 'ingest', from: before.rtmp, to: after.rtmp }])
    // Remembered from now on: the next launch is quiet and on the new address.
    const next = await launch()
    expect(next.rtmp).toBe(after.rtmp)
    expect(next.moved).toBeUndefined()
  })
})
