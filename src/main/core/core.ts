// The app's services behind the contract. Both shells call createCore() once and dispatch to it.
// FOUNDATION STUB: only appInfo is implemented here; the main-process-core work (api client,
// connections, keychain, broadcaster, studio host) replaces the rest, keeping these exported types.
import type { OnairCalls, ShellKind } from '../../shared/contract'
import { AppFailure } from '../../shared/result'
import { readAppInfo } from './app-info'
import { CoreEvents } from './events'

export interface CoreOptions {
  /** Settings file and the local studio's data live here. */
  appDataDir: string
  shell: ShellKind
  appVersion: string
  electronVersion?: string
}

export interface Core extends OnairCalls {
  events: CoreEvents
  /** Stops every ffmpeg child and the local studio; safe to call twice. */
  shutdown(): Promise<void>
}

export async function createCore(opts: CoreOptions): Promise<Core> {
  const events = new CoreEvents()
  const notYet = async (): Promise<never> => {
    throw new AppFailure({ code: 'internal', message: 'Not implemented yet.' })
  }
  return {
    events,
    shutdown: async () => {},
    appInfo: () =>
      readAppInfo({ version: opts.appVersion, shell: opts.shell, electronVersion: opts.electronVersion }),
    listConnections: notYet,
    connectionStatus: notYet,
    addConnection: notYet,
    removeConnection: notYet,
    setActiveConnection: notYet,
    listStreams: notYet,
    getStream: notYet,
    createStream: notYet,
    updateStream: notYet,
    setRecord: notYet,
    deleteStream: notYet,
    terminateStream: notYet,
    revealStreamKey: notYet,
    listSessions: notYet,
    getSession: notYet,
    getPlayback: notYet,
    getIngest: notYet,
    goLive: notYet,
    pushMedia: notYet,
    stopLive: notYet,
    retryNow: notYet,
    liveStatus: notYet,
    getSettings: notYet,
    saveSettings: notYet
  }
}
