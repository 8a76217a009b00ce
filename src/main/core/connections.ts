// Which service the app talks to: the local studio (default, started on first use) or Livepeer
// Studio / a custom Studio-compatible URL with an API key kept in the keychain. A key is saved only
// after a real call with it succeeded; the renderer sees ConnectionView ({hasKey}), never the key.
import { randomUUID } from 'node:crypto'
import type {
  AddConnectionArgs,
  ConnectionStatus,
  ConnectionView,
  IngestView
} from '../../shared/contract'
import { AppFailure } from '../../shared/result'
import { ApiClient, LIVEPEER_API, LIVEPEER_INGEST } from './api-client'
import type { ActiveHosts } from './csp'
import type { Keychain } from './keychain'
import { LOCAL_ID, type SettingsStore, type StoredConnection } from './settings-store'
import type { StudioHost } from './studio-host'

export interface ActiveService {
  conn: StoredConnection
  client: ApiClient
  ingest: IngestView
}

export interface ConnectionsOptions {
  store: SettingsStore
  keychain: Keychain
  host: StudioHost
  apiTimeoutMs?: number
  onStatus?: (s: ConnectionStatus) => void
}

export class Connections {
  private ingestCache = new Map<string, IngestView>()

  constructor(private readonly o: ConnectionsOptions) {}

  async list(): Promise<ConnectionView[]> {
    const s = this.o.store.get()
    return Promise.all(s.connections.map((c) => this.view(c, s.activeId)))
  }

  async status(): Promise<ConnectionStatus> {
    const s = this.o.store.get()
    const active = s.connections.find((c) => c.id === s.activeId)
    return {
      active: active ? await this.view(active, s.activeId) : null,
      local: this.o.host.status()
    }
  }

  async emitStatus(): Promise<void> {
    if (this.o.onStatus) this.o.onStatus(await this.status())
  }

  async add(args: AddConnectionArgs): Promise<ConnectionView> {
    const apiKey = args.apiKey?.trim()
    if (!apiKey)
      throw new AppFailure({
        code: 'bad-request',
        field: 'apiKey',
        message: 'An API key is needed.'
      })
    const baseUrl = normaliseBaseUrl(
      args.kind === 'livepeer' ? (args.baseUrl ?? LIVEPEER_API) : args.baseUrl
    )
    // Check the keychain first: a key that cannot be kept safely is not kept at all.
    await this.o.keychain.check()
    await new ApiClient({ baseUrl, apiKey, timeoutMs: this.o.apiTimeoutMs }).checkKey()
    const conn: StoredConnection = {
      id: `${args.kind}-${randomUUID().slice(0, 8)}`,
      kind: args.kind,
      name:
        args.name?.trim() || (args.kind === 'livepeer' ? 'Livepeer Studio' : new URL(baseUrl).host),
      baseUrl
    }
    await this.o.keychain.set(conn.id, apiKey)
    const s = this.o.store.update((x) => {
      x.connections.push(conn)
      x.activeId = conn.id
    })
    await this.emitStatus()
    return this.view(conn, s.activeId)
  }

  async remove(id: string): Promise<void> {
    if (id === LOCAL_ID)
      throw new AppFailure({
        code: 'bad-request',
        message: 'The local studio connection cannot be removed.'
      })
    this.find(id)
    await this.o.keychain.delete(id)
    for (const k of this.ingestCache.keys()) if (k.startsWith(`${id} `)) this.ingestCache.delete(k)
    this.o.store.update((x) => {
      x.connections = x.connections.filter((c) => c.id !== id)
      if (x.activeId === id) x.activeId = LOCAL_ID
    })
    await this.emitStatus()
  }

  async setActive(id: string): Promise<ConnectionView> {
    const conn = this.find(id)
    const s = this.o.store.update((x) => {
      x.activeId = id
    })
    await this.emitStatus()
    return this.view(conn, s.activeId)
  }

  /** A client for the active connection, starting the local studio on first use. */
  async active(): Promise<ActiveService> {
    return this.service(this.find(this.o.store.get().activeId))
  }

  /**
   * Where connection `id` takes RTMP now, active or not: a run keeps the service it went live on. The
   * local studio's may have moved: restarted after a crash while another program (a second Onair)
   * held its port, it comes back on another, and a run still pushing to the old one would hand its
   * stream key to whoever listens there now.
   */
  async ingestOf(id: string): Promise<IngestView> {
    return (await this.service(this.find(id))).ingest
  }

  private async service(conn: StoredConnection): Promise<ActiveService> {
    let client: ApiClient
    // The local studio's ports are part of what its ingest is cached by (its API may stay put while
    // its RTMP port moves).
    let where = ''
    if (conn.kind === 'local') {
      const info = await this.o.host.ensure()
      where = info.rtmpUrl
      client = new ApiClient({
        baseUrl: info.apiUrl,
        apiKey: info.apiKey,
        timeoutMs: this.o.apiTimeoutMs
      })
    } else {
      const apiKey = await this.o.keychain.get(conn.id)
      if (!apiKey)
        throw new AppFailure({
          code: 'key-rejected',
          message: `No API key is saved for "${conn.name}".`,
          hint: 'Remove the connection and add it again with its key.'
        })
      client = new ApiClient({ baseUrl: conn.baseUrl, apiKey, timeoutMs: this.o.apiTimeoutMs })
    }
    const key = `${conn.id} ${client.baseUrl} ${where}`
    let ingest = this.ingestCache.get(key)
    if (!ingest) {
      try {
        ingest = await client.getIngest()
      } catch (e) {
        if (conn.kind !== 'livepeer') throw e
        ingest = LIVEPEER_INGEST
      }
      this.ingestCache.set(key, ingest)
    }
    return { conn, client, ingest }
  }

  /**
   * The active service's hosts, for the renderer's CSP: its API and its playback base. A service that
   * cannot answer within waitMs (a studio still starting, a network down) gives its API address only.
   */
  async activeHosts(waitMs = 10_000): Promise<ActiveHosts | null> {
    const conn = this.o.store.get().connections.find((c) => c.id === this.o.store.get().activeId)
    if (!conn) return null
    let timer: ReturnType<typeof setTimeout> | undefined
    const late = new Promise<null>((r) => (timer = setTimeout(() => r(null), waitMs)))
    try {
      const a = await Promise.race([this.active(), late])
      if (a) return { kind: conn.kind, urls: [a.client.baseUrl, a.ingest.playbackBase] }
    } catch {
      // Reported where the renderer uses the connection; the page still loads.
    } finally {
      clearTimeout(timer)
    }
    const known = conn.kind === 'local' ? this.o.host.status().api : conn.baseUrl
    return { kind: conn.kind, urls: known ? [known] : [] }
  }

  private find(id: string): StoredConnection {
    const c = this.o.store.get().connections.find((x) => x.id === id)
    if (!c) throw new AppFailure({ code: 'not-found', message: 'That connection does not exist.' })
    return c
  }

  private async view(c: StoredConnection, activeId: string): Promise<ConnectionView> {
    let hasKey = false
    try {
      const account = c.kind === 'local' ? this.o.host.keyAccount : c.id
      hasKey = (await this.o.keychain.get(account)) !== undefined
    } catch {
      // No keychain: the connection shows as keyless; using it reports the keychain problem.
    }
    const baseUrl = c.kind === 'local' ? (this.o.host.status().api ?? '') : c.baseUrl
    return { id: c.id, kind: c.kind, name: c.name, baseUrl, hasKey, active: c.id === activeId }
  }
}

function normaliseBaseUrl(raw: string | undefined): string {
  const v = raw?.trim()
  let u: URL
  try {
    u = new URL(v ?? '')
  } catch {
    throw new AppFailure({
      code: 'bad-request',
      field: 'baseUrl',
      message: 'The service address must be a URL such as https://livepeer.studio/api.'
    })
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:')
    throw new AppFailure({
      code: 'bad-request',
      field: 'baseUrl',
      message: 'The service address must start with https:// or http://.'
    })
  return u.toString().replace(/\/+$/, '')
}
