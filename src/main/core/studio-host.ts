// Runs the local studio as a child process (data under <appDataDir>/studio): started with the app when
// it is the active connection, or on first use; it talks over a typed IPC channel (node/studio-channel);
// its API key is provisioned into the keychain; it is restarted if it dies and stopped on quit.
import { execFile, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import type { ConnectionStatus } from '../../shared/contract'
import { AppFailure } from '../../shared/result'
import { ApiClient } from './api-client'
import { RedactedRing } from '../../node/ffmpeg/stderr-ring'
import { forceKill, spawnChild, stopChild, terminate } from '../../node/process'
import { parseStudioMessage, type AppToStudio } from '../../node/studio-channel'
import { backoffDelay, type Backoff } from '../../shared/backoff'
import type { Keychain } from './keychain'
import { LOCAL_ID, type LocalPorts } from './settings-store'

export interface StudioCommand {
  command: string
  args: string[]
  env?: Record<string, string>
}

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

/** Dev and tests: node + tsx on the TypeScript CLI. The Electron shell passes its bundled script. */
export function defaultStudioCommand(): StudioCommand {
  const root = join(__dirname, '..', '..', '..')
  return { command: process.execPath, args: ['--import', 'tsx', join(root, 'src/studio/cli.ts')] }
}

export class StudioHost {
  private child: ChildProcess | null = null
  private starting: Promise<StudioInfo> | null = null
  private info: StudioInfo | null = null
  private st: LocalStatus = { state: 'stopped' }
  private stopped = false
  private restartTimer: ReturnType<typeof setTimeout> | null = null
  private restarts = 0
  private ports: LocalPorts | undefined
  private readonly cmd: StudioCommand

  constructor(private readonly o: StudioHostOptions) {
    this.cmd = o.command ?? defaultStudioCommand()
  }

  status(): LocalStatus {
    return { ...this.st }
  }

  get pid(): number | undefined {
    return this.child?.pid
  }

  /** The running studio's addresses and key, starting it first if needed. */
  ensure(): Promise<StudioInfo> {
    if (this.info && this.child) return Promise.resolve(this.info)
    this.stopped = false
    this.starting ??= this.start().finally(() => (this.starting = null))
    return this.starting
  }

  private setStatus(s: LocalStatus): void {
    this.st = s
    this.o.onStatus?.(this.status())
  }

  private async start(): Promise<StudioInfo> {
    this.setStatus({ state: 'starting' })
    try {
      // The same addresses at every launch (and after a crash, so a reconnecting broadcaster finds
      // the ingest): the remembered ports, or RTMP's usual 1935 the first time. The studio takes
      // another port where one is taken, and we say so.
      const remembered = this.o.ports?.get() ?? this.ports
      const ready = await this.spawnUntilReady(remembered ?? { api: 0, rtmp: DEFAULT_RTMP_PORT })
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
      this.restarts = 0
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
      this.killChild()
      this.setStatus({ state: 'failed', error: err.error.message })
      throw err
    }
  }

  private spawnUntilReady(
    ports: LocalPorts
  ): Promise<{ apiUrl: string; rtmpUrl: string; apiKey?: string }> {
    const args = [...this.cmd.args, '--data', this.o.dataDir, ...(this.o.extraArgs ?? [])]
    args.push('--port', String(ports.api), '--rtmp-port', String(ports.rtmp), '--port-fallback')
    const child = spawnChild(this.cmd.command, args, {
      env: { ...process.env, ...this.cmd.env },
      // The IPC channel is how the studio says ready or failed, and how it learns the app is gone.
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      // A tree: stopping the studio by force also reaches the ffmpegs it started.
      tree: true
    })
    this.child = child
    const ring = new RedactedRing([], 50)
    child.stderr?.on('data', (d: Buffer) => {
      ring.write(d)
      if (this.o.log)
        for (const line of d.toString().split(/\r?\n/))
          if (line.trim()) this.o.log(`studio: ${line}`)
    })
    // Nothing is read from stdout, but a full pipe must never block the studio.
    child.stdout?.resume()
    return new Promise((resolve, reject) => {
      let settled = false
      const fail = (why: string): void => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        const tail = ring.tail(3)
        reject(
          new AppFailure({
            code: 'studio-failed',
            message: `The local studio could not start: ${why}${tail && !tail.includes(why) ? ` (${tail.replace(/\n/g, ' | ')})` : ''}.`,
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
      child.once('exit', (code, signal) => {
        fail(`it exited (${signal ?? `code ${code}`})`)
        this.onExit(child, code, signal)
      })
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
      await kc.set(LOCAL_ID, fresh)
      return fresh
    }
    let key = await kc.get(LOCAL_ID)
    if (key && (await this.keyWorks(apiUrl, key))) return key
    key = await this.createKey()
    await kc.set(LOCAL_ID, key)
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

  private createKey(): Promise<string> {
    const args = [...this.cmd.args, 'keys', 'create', '--data', this.o.dataDir]
    return new Promise((resolve, reject) => {
      execFile(
        this.cmd.command,
        args,
        { env: { ...process.env, ...this.cmd.env }, timeout: 60_000 },
        (err, stdout) => {
          const key = stdout.trim().split('\n').pop()?.trim()
          if (err || !key)
            reject(
              new AppFailure({
                code: 'studio-failed',
                message: 'The local studio could not make a new API key.'
              })
            )
          else resolve(key)
        }
      )
    })
  }

  private onExit(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.child !== child) return
    this.child = null
    const wasReady = this.info !== null
    this.info = null
    if (this.stopped) {
      this.setStatus({ state: 'stopped' })
      return
    }
    if (!wasReady) return // start() reports the failure
    this.setStatus({
      state: 'failed',
      error: `The local studio stopped unexpectedly (${signal ?? `code ${code}`}); restarting.`
    })
    const delay = backoffDelay(++this.restarts, this.restartBackoff())
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null
      if (!this.stopped) this.ensure().catch(() => undefined)
    }, delay)
  }

  /** Restarts after a crash: 1 s, 2 s, 4 s ... up to 30 s (no jitter: one app, one studio). */
  private restartBackoff(): Backoff {
    return { initialMs: this.o.restartDelayMs ?? 1000, factor: 2, capMs: 30_000, jitter: 0 }
  }

  private killChild(): void {
    if (this.child) forceKill(this.child)
  }

  /** Orderly stop (SIGTERM lets it finalize sessions), SIGKILL to the group after 5 s. */
  async stop(graceMs = 5000): Promise<void> {
    this.stopped = true
    if (this.restartTimer) clearTimeout(this.restartTimer)
    await this.starting?.catch(() => undefined)
    const child = this.child
    if (!child) {
      this.setStatus({ state: 'stopped' })
      return
    }
    // Graceful: "stop" on the channel (every OS; SIGTERM where the channel is gone) lets it finalize
    // its sessions. Forced after graceMs: the whole tree.
    const graceful = (): void => {
      if (child.connected) child.send({ type: 'stop' } satisfies AppToStudio)
      else terminate(child)
    }
    await stopChild(child, { graceful, killAfterMs: graceMs, tree: true })
    // The studio's own ffmpegs share its tree: make sure none is left behind.
    forceKill(child, { tree: true })
  }
}
