// The app's services behind the contract. Both shells call createCore() once and dispatch to it;
// expected failures are thrown as AppFailure and turned into Result by the shells.
import { existsSync } from 'node:fs'
import type { LocalRecordingView, OnairCalls, ShellKind } from '../../shared/contract'
import { AppFailure } from '../../shared/result'
import { killAllTracked } from '../../node/process'
import { readAppInfo } from './app-info'
import { connectHostsOf } from './csp'
import { RenditionDownloads } from './rendition-downloads'
import { resolveFfmpeg } from '../../node/ffmpeg/locate'
import { Broadcaster, type BroadcastTuning } from './broadcaster'
import { Connections } from './connections'
import { CrashMarker, cutOffNoticeOf } from './crash-marker'
import { isFinal, isRunning } from '../../shared/live-state'
import { CoreEvents } from './events'
import { DisplayChooser } from './display-chooser'
import { Keychain } from './keychain'
import { SettingsStore } from './settings-store'
import { StudioHost, studioDataDir, type StudioCommand } from './studio-host'
import type { ChildCommand } from './child-command'
import { probeEncoders } from './encoder/host'
import { Markers } from './markers'
import * as destinations from './destinations'
import { LocalRecordings } from './local-recording/recordings'
import { Recorder } from './recorder'
import { GlobalHotkeys, type GlobalShortcutLike } from './global-hotkeys'
import { keyPlatform, readHotkeys } from '../../shared/hotkeys'
import { readUploadSettings } from '../../shared/uploads'
import { WhipRuns } from './whip'
import { uploadCalls } from './uploads/publish'
import { webhookCalls } from './webhooks'
import { streamCalls } from './streams'
import { liveRunCalls } from './live-runs'
import { viewerCalls } from './viewers'
import { clipCalls } from './clips'
import { downloadCalls } from './downloads'
import { SetupTests } from './setup-test/run'
import { AppStats } from './app-stats/app-stats'
import type { ProcessMetricLike } from './app-stats/samplers'
import { BrowserSources, type BrowserPageFactory } from './browser-sources'

export interface CoreOptions {
  /** Settings file and the local studio's data live here. */
  appDataDir: string
  shell: ShellKind
  appVersion: string
  electronVersion?: string
  /** How to run the local studio; default: node + tsx on src/studio/cli.ts. */
  studioCommand?: StudioCommand
  /** Extra arguments for the studio CLI. */
  studioArgs?: string[]
  /** Keychain service name; default ONAIR_KEYCHAIN_SERVICE or "onair". */
  keychainService?: string
  apiTimeoutMs?: number
  broadcast?: BroadcastTuning
  /**
   * Start the local studio right away when it is the active connection (the app does: it "starts with
   * the app"); otherwise it starts on first use. Tests leave it lazy.
   */
  warmLocalStudio?: boolean
  /** The app log (app-log.ts): the local studio's own lines go there too. */
  log?: (line: string) => void
  /**
   * Opens a file on the desktop: Electron's shell.showItemInFolder ('folder') and shell.openPath
   * ('play'), passed in by the Electron shell (core imports no Electron). The web shell has none: it
   * answers the path, which the page shows with a copy button.
   */
  /** Record on this computer's default folder; else the OS's videos folder + Onair (tests set theirs). */
  recordingsDir?: string
  openOnDesktop?: (path: string, action: 'folder' | 'play') => Promise<void>
  /**
   * Electron's globalShortcut, passed in by the Electron shell: the chosen keys then work while Onair
   * is in the background (global-hotkeys.ts). The web shell has none.
   */
  globalShortcut?: GlobalShortcutLike
  /** How to start Onair's encoder process (#33); default: encoder/host.ts's. Tests pass a broken one. */
  encoderCommand?: ChildCommand
  /** Electron's app.getAppMetrics(), passed in by the Electron shell: the stats view's page and GPU processes. */
  appMetrics?: () => ProcessMetricLike[]
  /**
   * Opens browser sources' pages offscreen (Electron's offscreen windows, main/electron/browser-pages.ts;
   * tests a Node painter). The web shell has none: openBrowserSource answers 'needs-desktop'.
   */
  browserPages?: BrowserPageFactory
}

export interface Core extends OnairCalls {
  events: CoreEvents
  /** getDisplayMedia's screen and window chooser (Electron's window.ts asks it; the renderer answers). */
  displayChooser: DisplayChooser
  /** connect-src hosts for the renderer's CSP, from the active connection (csp.ts). */
  connectHosts(): Promise<string[]>
  /**
   * Remuxes a rendition that downloadRecording named (format 'hls') into `file`, as MP4: the shells
   * call it once they know where the file goes.
   */
  saveRendition(url: string, file: string): Promise<void>
  /** Stops every ffmpeg child and the local studio; safe to call twice. */
  shutdown(): Promise<void>
}

export async function createCore(opts: CoreOptions): Promise<Core> {
  const events = new CoreEvents()
  const stats = new AppStats({ events, appMetrics: opts.appMetrics })
  const store = new SettingsStore(opts.appDataDir)
  const keychain = new Keychain(opts.keychainService)
  const host = new StudioHost({
    dataDir: studioDataDir(opts.appDataDir),
    keychain,
    command: opts.studioCommand,
    extraArgs: opts.studioArgs,
    log: opts.log,
    ports: {
      get: () => store.get().localPorts,
      set: (p) => {
        const was = store.get().localPorts
        if (was?.api !== p.api || was?.rtmp !== p.rtmp) store.update((x) => (x.localPorts = p))
      }
    },
    // Called only after ensure(), when conns exists.
    onStatus: () => void conns.emitStatus().catch(() => undefined)
  })
  const conns = new Connections({
    store,
    keychain,
    host,
    apiTimeoutMs: opts.apiTimeoutMs,
    onStatus: (s) => events.emit('connection:status', s)
  })
  const c = conns
  const recordings = new LocalRecordings({
    appDataDir: opts.appDataDir,
    folder: () => store.get().devices.localRecording?.folder,
    defaultFolder: opts.recordingsDir,
    ffmpeg: () => resolveFfmpeg().path,
    emit: (v) => {
      events.emit('live:local-recording', v)
      // A finished copy may go up by itself (the automatic upload); uploads is made just below.
      void copyChanged(v)
    },
    log: opts.log
  })
  let copyChanged = async (_v: LocalRecordingView): Promise<unknown> => undefined
  // Copies the previous process was writing when it died: marked, and made whole in the background.
  void recordings.finishInterrupted()
  // A run the previous process never ended (it crashed or was killed while live): told once.
  const marker = new CrashMarker(opts.appDataDir)
  let cutOff = marker.read()
  const live = new Broadcaster({
    tuning: opts.broadcast,
    recordings,
    encoderCommand: opts.encoderCommand,
    log: opts.log,
    onState: (e) => {
      if (isFinal(e.state)) marker.ended(e.runId)
      else marker.alive(e.runId)
      events.emit('live:state', e)
    },
    onHealth: (e) => {
      marker.alive(e.runId)
      events.emit('live:health', e)
    },
    onEncoder: (e) => events.emit('live:encoder', e)
  })
  /** Record without going live (#34 §2): its own encoder and copy, apart from any live run. */
  const recorder = new Recorder({ recordings, encoderCommand: opts.encoderCommand, log: opts.log })
  const api = async () => c.active()
  const client = async () => (await api()).client
  /** Local copies sent to the service as assets (tus, resumable across restarts). */
  const uploads = uploadCalls({
    appDataDir: opts.appDataDir,
    active: api,
    recordings,
    emit: (v) => events.emit('upload:progress', v),
    log: opts.log,
    settings: {
      get: () => readUploadSettings(store.get().uploads),
      set: (u) => readUploadSettings(store.update((x) => (x.uploads = u)).uploads)
    }
  })
  copyChanged = uploads.copyChanged
  const markers = new Markers(opts.appDataDir)
  /** Markers belong to the connection they were made on (stream ids are per service). */
  const connectionId = async (): Promise<string> => (await c.status()).active?.id ?? ''
  const displayChooser = new DisplayChooser({ emit: (e) => events.emit('display:choose', e) })
  const renditions = new RenditionDownloads({ ffmpeg: () => resolveFfmpeg().path })
  let shutdownP: Promise<void> | undefined
  // The chosen keys, registered for the background now (Electron) and again on every change.
  const hotkeys = new GlobalHotkeys(
    opts.globalShortcut ?? null,
    keyPlatform(process.platform),
    (action) => events.emit('hotkey:action', { action })
  )
  hotkeys.apply(readHotkeys(store.get().hotkeys))
  /** Low latency (WebRTC) runs: the WHIP signalling for the page. */
  const whip = new WhipRuns()
  /** The setup test (the first-run guide's): a test stream to the active service, the encoder timed. */
  const setup = new SetupTests({
    active: api,
    ffmpeg: () => resolveFfmpeg().path,
    encoderCommand: opts.encoderCommand,
    busy: () => whip.open !== null || isRunning(live.status()?.state),
    emit: (p) => events.emit('setup:progress', p),
    log: opts.log
  })
  /** Browser sources' offscreen pages and their newest frames. */
  const browsers = new BrowserSources({
    factory: opts.browserPages,
    emit: (e) => events.emit('browser:state', e),
    log: opts.log
  })
  /** Going live by RTMP or WHIP, one run at a time, and a WHIP run's local copy. */
  const liveRuns = liveRunCalls({
    live,
    whip,
    recorder,
    recordings,
    marker,
    active: api,
    ingestOf: (id) => c.ingestOf(id),
    connectionId
  })

  // An exit without shutdown() (process.exit, an uncaught exception) still takes every child along:
  // node/process.ts forces the tracked ones from its 'exit' hook.

  if (opts.warmLocalStudio) {
    void c
      .status()
      .then((s) => (s.active?.kind === 'local' ? c.active() : undefined))
      // A failure is reported through connection:status and shown on the Connection screen.
      .catch(() => undefined)
  }

  const core: Core = {
    events,
    displayChooser,
    connectHosts: async () => connectHostsOf(await c.activeHosts()),
    saveRendition: (url, file) => renditions.save(url, file),
    shutdown: () =>
      (shutdownP ??= (async () => {
        displayChooser.cancel()
        setup.cancel()
        hotkeys.dispose()
        await browsers.closeAll()
        await live.shutdown().catch(() => undefined)
        await recorder.shutdown().catch(() => undefined)
        await uploads.stop()
        await liveRuns.stop()
        await host.stop().catch(() => undefined)
        killAllTracked()
      })()),
    appInfo: () =>
      readAppInfo({
        version: opts.appVersion,
        shell: opts.shell,
        electronVersion: opts.electronVersion
      }),
    appStats: () => stats.read(),

    listConnections: () => c.list(),
    connectionStatus: () => c.status(),
    addConnection: (args) => c.add(args),
    removeConnection: (id) => c.remove(id),
    setActiveConnection: (id) => c.setActive(id),

    ...streamCalls(api, recordings),

    listDestinations: async (streamId) => destinations.listDestinations(await client(), streamId),
    addDestination: async (args) => destinations.addDestination(await client(), args),
    setDestinationEnabled: async (streamId, targetId, enabled) =>
      destinations.setDestinationEnabled(await client(), streamId, targetId, enabled),
    removeDestination: async (streamId, targetId) =>
      destinations.removeDestination(await client(), streamId, targetId),

    ...liveRuns.calls,
    pushFrames: async (runId, chunk) =>
      runId === recorder.id ? recorder.pushFrames(runId, chunk) : live.pushFrames(runId, chunk),
    async startRecording({ source, output }) {
      if (source.kind !== 'media')
        throw new AppFailure({
          code: 'bad-request',
          message: 'Only a camera, a screen or a scene can be recorded.',
          hint: 'Choose a camera, screen or scene as the source.'
        })
      return recorder.start({ output })
    },
    stopRecording: (id) => recorder.stop(id),
    listEncoders: () => probeEncoders(opts.encoderCommand),
    stopLive: (runId) => live.stop(runId),
    retryNow: async (runId) => live.retryNow(runId),
    liveStatus: async () => live.status(),
    ...viewerCalls({ client, run: () => live.status() }),
    async cutOffNotice() {
      if (!cutOff) return null
      return cutOffNoticeOf(cutOff, (await c.status()).active?.id, client)
    },
    async dismissCutOffNotice(runId) {
      if (cutOff?.runId !== runId) return
      cutOff = null
      marker.forget(runId)
    },

    ...clipCalls(client),
    ...downloadCalls(client, renditions),

    addMarker: async (args) =>
      markers.add(await connectionId(), args.streamId, args.at, args.label),
    listMarkers: async (args) =>
      markers.forStream(await connectionId(), args.streamId, args.from, args.to),
    labelMarker: async (id, label) => markers.label(await connectionId(), id, label),
    deleteMarker: async (id) => markers.remove(await connectionId(), id),

    localRecordingInfo: () => recordings.info(),
    listRecordings: async () =>
      recordings
        .list()
        .filter((r) => r.streamId === '')
        .sort((a, b) => b.startedAt - a.startedAt),
    ...uploads.calls,
    ...webhookCalls(client),
    async openLocalRecording(id, action) {
      const r = recordings.get(id)
      if (!r)
        throw new AppFailure({ code: 'not-found', message: 'That local recording is not known.' })
      if (!existsSync(r.file))
        throw new AppFailure({
          code: 'not-found',
          message: `The file is not there any more: ${r.file}`,
          hint: 'It was moved or deleted.'
        })
      if (!opts.openOnDesktop) return { opened: false, path: r.file }
      await opts.openOnDesktop(r.file, action)
      return { opened: true, path: r.file }
    },

    getSettings: async () => store.get().devices,
    saveSettings: async (devices) => store.update((s) => (s.devices = devices)).devices,
    saveSceneImage: (bytes) => store.images.save(bytes),
    readSceneImage: (file) => store.images.read(file),
    getHotkeys: async () => ({
      settings: readHotkeys(store.get().hotkeys),
      status: hotkeys.current()
    }),
    setHotkeys: async (given) => {
      const settings = readHotkeys(given)
      store.update((s) => (s.hotkeys = settings))
      return { settings, status: hotkeys.apply(settings) }
    },

    chooseDisplaySource: async (requestId, sourceId) => displayChooser.answer(requestId, sourceId),

    runSetupTest: () => setup.run(),
    cancelSetupTest: async () => setup.cancel(),

    ...browsers.calls
  }
  return core
}
