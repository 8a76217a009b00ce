// Runs the local studio as a child process (data under <appDataDir>/studio): started with the app when
// it is the active connection, or on first use; it talks over a typed IPC channel (node/studio-channel);
// its API key is provisioned into the keychain (one entry per data folder); it is restarted if it dies (node/restart-loop.ts) and
// stopped on quit. When it dies, whatever it started (its transcoders, its forwarders) dies with it.
import { createHash } from 'node:crypto'
import { join, resolve } from 'node:path'
import type { ConnectionStatus } from '../../shared/contract'
import { AppFailure } from '../../shared/result'
import { ApiClient } from './api-client'
import { appChildCommand, type ChildCommand } from './child-command'
import {
  forceKill,
  runChild,
  spawnChild,
  stopChild,
  terminate,
  type ChildProcess,
  type ProcessPlatform,
  type SpawnChildOptions
} from '../../node/process'
import { Supervised } from '../../node/restart-loop'
import { parseStudioMessage, type AppToStudio } from '../../node/studio-channel'
import type { Backoff } from '../../shared/backoff'
import type { Keychain } from './keychain'
import { LOCAL_ID, type LocalPorts } from './settings-store'

export type StudioCommand = ChildCommand

export interface StudioInfo {
  apiUrl: string
  rtmpUrl: string
  apiKey: string
}

export type LocalStatus = ConnectionStatus['local']

export interface StudioHostOptions {
  dataDir: string
  keychain: Keychain
  command?: StudioCommand
  /** Extra CLI arguments (tests pass a short --resume-window). */
  extraArgs?: string[]
  onStatus?: (s: LocalStatus) => void
  readyTimeoutMs?: number
  restartDelayMs?: number
  /** The app log: the studio's stderr lines (already redacted by the studio) are kept there. */
  log?: (line: string) => void
  /** Where the studio's ports are remembered between launches (the app's settings). */
  ports?: { get(): LocalPorts | undefined; set(p: LocalPorts): void }
  /** The OS calls and Node's spawn, injectable so other OSes' branches run in tests. */
  platform?: ProcessPlatform
  spawnFn?: SpawnChildOptions['spawnFn']
}

/** RTMP's well-known port: what encoders and creators expect when nothing else is said. */
export const DEFAULT_RTMP_PORT = 1935

const portOf = (url: string): number => {
  try {
    const u = new URL(url)
    return Number(u.port || (u.protocol === 'rtmp:' ? DEFAULT_RTMP_PORT : 80))
  } catch {
    return 0
  }
}

const withPort = (url: string, port: number): string => {
  const u = new URL(url)
  u.port = String(port)
  return u.toString().replace(/\/$/, '')
}

/** Dev and tests: node + tsx on the TypeScript CLI; bundled: studio.js beside main's script. */
export function defaultStudioCommand(): StudioCommand {
  return appChildCommand('studio', 'src/studio/cli.ts')
}

/** The local studio's data folder inside the app's. */
export const studioDataDir = (appDataDir: string): string => join(appDataDir, 'studio')

/**
 * The keychain account of the local studio key of the studio whose data is in `dataDir`. Each data
 * folder holds its own studio, with its own keys: one account for all of them ('local', before) let
 * a second Onair with another data folder (a portable copy, a second profile, a test) overwrite the
 * first's key, which then made a new key at its next start, and read the other's key while both ran.
 * The folder is named by a hash: the path may hold the user's name, and some keychains cap names.
 * The path is as the app gives it (Electron's userData), not case-folded (Windows, macOS).
 */
export function localKeyAccount(dataDir: string): string {
  const id = createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 16)
  return `${LOCAL_ID}-${id}`
}

export class StudioHost {
  private sup: Supervised<ChildProcess> | null = null
  private starting: Promise<StudioInfo> | null = null
  private info: StudioInfo | null = null
  private st: LocalStatus = { state: 'stopped' }
  private stopped = false
  private ports: LocalPorts | undefined
  private readonly cmd: StudioCommand

  /** Where this studio's key is kept in the keychain (localKeyAccount). */
  readonly keyAccount: string

  constructor(private readonly o: StudioHostOptions) {
    this.cmd = o.command ?? defaultStudioCommand()
    this.keyAccount = localKeyAccount(o.dataDir)
  }

  status(): LocalStatus {
    return { ...this.st }
  }

  private get child(): ChildProcess | null {
    return this.sup?.child ?? null
  }

  get pid(): number | undefined {
    return this.child?.pid
  }

  /** The running studio's addresses and key, starting it first if needed. */
  ensure(): Promise<StudioInfo> {
    if (this.info && this.child) return Promise.resolve(this.info)
    this.stopped = false
    if (!this.starting) {
      // A restart after a crash waiting for its backoff starts now; otherwise a new supervision.
      if (!this.sup?.retryNow()) {
        this.sup = this.supervise()
        this.sup.start()
      }
    }
    return (
      this.starting ??
      Promise.reject(
        new AppFailure({ code: 'studio-failed', message: 'The local studio could not start.' })
      )
    )
  }

  private setStatus(s: LocalStatus): void {
    this.st = s
    this.o.onStatus?.(this.status())
  }

  /** Restarts after a crash once it had been ready: 1 s, 2 s, 4 s ... up to 30 s (no jitter: one app, one studio). */
  private supervise(): Supervised<ChildProcess> {
    const backoff: Backoff = {
      initialMs: this.o.restartDelayMs ?? 1000,
      factor: 2,
      capMs: 30_000,
      jitter: 0
    }
    const sup: Supervised<ChildProcess> = new Supervised<ChildProcess>({
      spawn: () => this.launch(),
      backoff,
      // A studio that never became ready is not restarted: its start reports the failure.
      decide: (exit) => (exit.wasUp && !this.stopped ? 'restart' : 'give-up'),
      onStderr: (d) => {
        if (this.o.log)
          for (const line of d.toString().split(/\r?\n/))
            if (line.trim()) this.o.log(`studio: ${line}`)
      },
      onExit: (exit, next) => {
        if (this.sup !== sup) return
        this.info = null
        if (this.stopped) {
          this.setStatus({ state: 'stopped' })
          return
        }
        if (!next) {
          // Never ready: its start reports the failure (unless it could not even be spawned).
          if (exit.spawnError && this.st.state === 'starting')
            this.setStatus({
              state: 'failed',
              error: { kind: 'not-spawned', message: exit.spawnError.message }
            })
          return
        }
        // It restarts: the Connection screen says so (features/connection/connection-text.ts).
        this.setStatus({
          state: 'failed',
          error: { kind: 'crashed', signal: exit.signal, code: exit.code }
        })
      }
    })
    return sup
  }

  /** One attempt: the studio child, and its start (ready, ports, key) as this.starting. */
  private launch(): ChildProcess {
    this.setStatus({ state: 'starting' })
    // The same addresses at every launch (and after a crash, so a reconnecting broadcaster finds
    // the ingest): the remembered ports, or RTMP's usual 1935 the first time. The studio takes
    // another port where one is taken, and we say so.
    const remembered = this.o.ports?.get() ?? this.ports
    const ports = remembered ?? { api: 0, rtmp: DEFAULT_RTMP_PORT }
    const args = [...this.cmd.args, '--data', this.o.dataDir, ...(this.o.extraArgs ?? [])]
    args.push('--port', String(ports.api), '--rtmp-port', String(ports.rtmp), '--port-fallback')
    const child = spawnChild(this.cmd.command, args, {
      env: { ...process.env, ...this.cmd.env },
      // The IPC channel is how the studio says ready or failed, and how it learns the app is gone.
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      // A tree: stopping the studio by force also reaches the ffmpegs it started.
      tree: true,
      kind: 'studio',
      platform: this.o.platform,
      spawnFn: this.o.spawnFn
    })
    // Its transcoders and forwarders share its process group. A studio that dies without stopping
    // them (a crash, kill -9) would leave a forwarder reading a playlist that never ends: they go
    // with it. (Windows: libuv's kill-on-close job takes them; taskkill /T is the backstop.)
    child.once('exit', () => forceKill(child, { tree: true, platform: this.o.platform }))
    // Nothing is read from stdout, but a full pipe must never block the studio.
    child.stdout?.resume()
    const start = this.start(child, remembered).finally(() => {
      if (this.starting === start) this.starting = null
    })
    // A restart's start is awaited by nobody: its failure is in the status.
    start.catch(() => undefined)
    this.starting = start
    return child
  }

  private async start(
    child: ChildProcess,
    remembered: LocalPorts | undefined
  ): Promise<StudioInfo> {
    try {
      const ready = await this.untilReady(child)
      const got = { api: portOf(ready.apiUrl), rtmp: portOf(ready.rtmpUrl) }
      const moved: NonNullable<LocalStatus['moved']> = []
      if (remembered && got.rtmp !== remembered.rtmp)
        moved.push({
          what: 'ingest',
          from: withPort(ready.rtmpUrl, remembered.rtmp),
          to: ready.rtmpUrl
        })
      if (remembered && got.api !== remembered.api)
        moved.push({ what: 'api', from: withPort(ready.apiUrl, remembered.api), to: ready.apiUrl })
      this.ports = got
      this.o.ports?.set(got)
      const apiKey = await this.provisionKey(ready.apiUrl, ready.apiKey)
      this.info = { apiUrl: ready.apiUrl, rtmpUrl: ready.rtmpUrl, apiKey }
      this.sup?.up()
      this.setStatus({
        state: 'ready',
        api: ready.apiUrl,
        rtmp: ready.rtmpUrl,
        ...(moved.length ? { moved } : {})
      })
      return this.info
    } catch (e) {
      const err =
        e instanceof AppFailure
          ? e
          : new AppFailure({
              code: 'studio-failed',
              message: `The local studio could not start: ${(e as Error).message}`
            })
      forceKill(child)
      this.setStatus({
        state: 'failed',
        error: { kind: 'start-failed', message: err.error.message }
      })
      throw err
    }
  }

  private untilReady(
    child: ChildProcess
  ): Promise<{ apiUrl: string; rtmpUrl: string; apiKey?: string }> {
    return new Promise((resolve, reject) => {
      let settled = false
      const fail = (why: string): void => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        const tail = (this.sup?.stderr() ?? []).slice(-3).join(' | ')
        reject(
          new AppFailure({
            code: 'studio-failed',
            message: `The local studio could not start: ${why}${tail && !tail.includes(why) ? ` (${tail})` : ''}.`,
            hint: 'See that ffmpeg is installed and the app data folder is writable, then retry.'
          })
        )
      }
      const timer = setTimeout(
        () => fail('it did not become ready in time'),
        this.o.readyTimeoutMs ?? 60_000
      )
      child.on('message', (raw) => {
        const m = parseStudioMessage(raw)
        if (!m || settled) return
        if (m.type === 'failed') return fail(m.reason)
        settled = true
        clearTimeout(timer)
        resolve({ apiUrl: m.api, rtmpUrl: m.rtmp, apiKey: m.apiKey })
      })
      child.once('error', (e) => fail(e.message))
      child.once('exit', (code, signal) => fail(`it exited (${signal ?? `code ${code}`})`))
    })
  }

  /**
   * Without a keychain the local studio still works: its key then lives in this process's memory only,
   * for this run (a new one is made at the next start), and is never written anywhere in plain text.
   * The studio itself keeps only its hash. Keys for other services still need the keychain.
   */
  private memoryKey: string | undefined

  private async keychainReachable(): Promise<boolean> {
    try {
      await this.o.keychain.check()
      return true
    } catch (e) {
      if (e instanceof AppFailure && e.error.code === 'keychain-unavailable') return false
      throw e
    }
  }

  /** The studio shows a key only on its first start; later the keychain has it, or a new one is made. */
  private async provisionKey(apiUrl: string, fresh?: string): Promise<string> {
    const kc = this.o.keychain
    if (!(await this.keychainReachable())) {
      if (!this.memoryKey || !(await this.keyWorks(apiUrl, this.memoryKey)))
        this.memoryKey = fresh ?? (await this.createKey())
      return this.memoryKey
    }
    if (fresh) {
      await kc.set(this.keyAccount, fresh)
      return fresh
    }
    const key = await kc.get(this.keyAccount)
    if (key && (await this.keyWorks(apiUrl, key))) return key
    const legacy = await this.legacyKey(apiUrl)
    if (legacy) return legacy
    const made = await this.createKey()
    await kc.set(this.keyAccount, made)
    return made
  }

  /**
   * The key an earlier Onair kept under the one shared account ('local'), when it opens this studio:
   * moved to this folder's account, and the shared entry removed (it was this studio's). A key there
   * that this studio rejects is another data folder's, and stays for it.
   */
  private async legacyKey(apiUrl: string): Promise<string | undefined> {
    const kc = this.o.keychain
    const key = await kc.get(LOCAL_ID)
    if (!key || !(await this.keyWorks(apiUrl, key))) return undefined
    await kc.set(this.keyAccount, key)
    await kc.delete(LOCAL_ID)
    return key
  }

  private async keyWorks(apiUrl: string, key: string): Promise<boolean> {
    try {
      await new ApiClient({ baseUrl: apiUrl, apiKey: key }).checkKey()
      return true
    } catch (e) {
      if (e instanceof AppFailure && e.error.code === 'key-rejected') return false
      throw e
    }
  }

  private async createKey(): Promise<string> {
    const args = [...this.cmd.args, 'keys', 'create', '--data', this.o.dataDir]
    const r = await runChild(this.cmd.command, args, {
      env: { ...process.env, ...this.cmd.env },
      timeoutMs: 60_000
    })
    const key = r.stdout.trim().split('\n').pop()?.trim()
    if (r.error || r.code !== 0 || !key)
      throw new AppFailure({
        code: 'studio-failed',
        message: 'The local studio could not make a new API key.'
      })
    return key
  }

  /** Orderly stop ('stop' on the channel, or SIGTERM, lets it finalize sessions); the whole tree forced after 5 s. */
  async stop(graceMs = 5000): Promise<void> {
    this.stopped = true
    await this.starting?.catch(() => undefined)
    const sup = this.sup
    const child = sup?.child
    if (!sup || !child) {
      await sup?.stop()
      this.setStatus({ state: 'stopped' })
      return
    }
    // Graceful: "stop" on the channel (every OS; SIGTERM where the channel is gone) lets it finalize
    // its sessions. Forced after graceMs: the whole tree.
    const graceful = (): void => {
      if (child.connected) child.send({ type: 'stop' } satisfies AppToStudio)
      else terminate(child)
    }
    await sup.stop((c) => stopChild(c, { graceful, killAfterMs: graceMs, tree: true }))
    // The studio's own ffmpegs share its tree: make sure none is left behind.
    forceKill(child, { tree: true })
  }
}
