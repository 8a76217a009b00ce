import { beforeEach, describe, expect, it, vi } from 'vitest'
import { CALL_NAMES, channelOf } from '../../../src/shared/contract'
import { buildApi } from '../../../src/preload/api'

// The Electron runtime cannot run here: the preload's two Electron objects are stand-ins that record
// what the preload does with them. Everything else is the real preload module.
const exposed: Record<string, unknown> = {}
const invoke = vi.fn(async (..._args: unknown[]) => ({ ok: true, value: 'pong' }))
const listeners = new Map<string, (e: unknown, p: unknown) => void>()
vi.mock('electron', () => ({
  contextBridge: { exposeInMainWorld: (key: string, value: unknown) => (exposed[key] = value) },
  ipcRenderer: {
    invoke: (...args: unknown[]) => invoke(...args),
    on: (channel: string, fn: (e: unknown, p: unknown) => void) => listeners.set(channel, fn),
    removeListener: (channel: string) => listeners.delete(channel)
  }
}))

describe('preload', () => {
  beforeEach(() => invoke.mockClear())

  it('exposes exactly the contract as window.onair, nothing else', async () => {
    await import('../../../src/preload/index')
    expect(Object.keys(exposed)).toEqual(['onair'])
    const api = exposed.onair as Record<string, unknown>
    expect(Object.keys(api).sort()).toEqual([...CALL_NAMES, 'on'].sort())
    for (const key of Object.keys(api)) expect(typeof api[key]).toBe('function')
    expect(Object.isFrozen(api)).toBe(true)
  })

  it('routes every call to its own prefixed channel with its arguments', async () => {
    await import('../../../src/preload/index')
    const api = exposed.onair as Record<string, (...a: unknown[]) => Promise<unknown>>
    await expect(api.getStream!('abc')).resolves.toEqual({ ok: true, value: 'pong' })
    expect(invoke).toHaveBeenCalledWith('onair:getStream', 'abc')
    for (const name of CALL_NAMES) {
      await api[name]!()
      expect(invoke).toHaveBeenLastCalledWith(channelOf(name))
    }
  })

  it('subscribes to known events only and unsubscribes', async () => {
    await import('../../../src/preload/index')
    const api = exposed.onair as { on: (e: string, fn: (p: unknown) => void) => () => void }
    const seen: unknown[] = []
    const off = api.on('live:state', (p) => seen.push(p))
    listeners.get('onair:live:state')?.({}, { state: 'live' })
    expect(seen).toEqual([{ state: 'live' }])
    off()
    expect(listeners.has('onair:live:state')).toBe(false)
    expect(() => api.on('ipc:anything', () => {})).toThrow(/Unknown event/)
  })
})

describe('buildApi', () => {
  it('builds the same shape the web bridge must match', () => {
    const api = buildApi(
      async () => ({ ok: true, value: null }),
      () => () => {}
    )
    expect(Object.keys(api).sort()).toEqual([...CALL_NAMES, 'on'].sort())
  })
})
