// The one IPC handler, without Electron: checks who is calling, then hands the call to dispatch().
// ipc.ts registers it for every contract entry; tests exercise it directly.
import type { CallName, OnairCalls } from '../../shared/contract'
import type { Result } from '../../shared/result'
import { dispatch } from '../core/dispatch'
import { isOwnOrigin } from '../../shared/origin'

/** The parts of Electron's IpcMainInvokeEvent we look at. */
export interface InvokeEventLike {
  senderFrame: { url: string; parent: unknown } | null
}

/**
 * Only the top frame of our own renderer may call: a frame loaded from another origin (an iframe, a
 * navigated page) is refused even if it somehow got hold of ipcRenderer.
 */
export function isTrustedSender(
  event: InvokeEventLike,
  rendererOrigins: readonly string[]
): boolean {
  const frame = event.senderFrame
  if (!frame || frame.parent) return false
  return isOwnOrigin(frame.url, rendererOrigins)
}

export function makeIpcHandler(
  core: OnairCalls,
  name: CallName,
  rendererOrigins: readonly string[],
  log?: (line: string) => void
): (event: InvokeEventLike, ...args: unknown[]) => Promise<Result<unknown>> {
  return async (event, ...args) => {
    if (!isTrustedSender(event, rendererOrigins)) {
      log?.(`refused ${name} from a foreign frame`)
      return {
        ok: false,
        error: {
          code: 'forbidden-sender',
          message: 'This call came from a page that is not Onair.'
        }
      }
    }
    return dispatch(core, name, args, { log })
  }
}
