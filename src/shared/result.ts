// Result/AppError: how every expected failure crosses a process boundary. Electron's invoke only carries an
// Error's message, and the web shell only carries JSON, so failures travel as data, never as thrown errors.

export type AppErrorCode =
  | 'bad-request' // arguments that fail validation before anything is sent
  | 'validation' // the service rejected the payload's shape (422)
  | 'rule' // the service's business rule said no (400)
  | 'key-rejected' // 401 from the service
  | 'forbidden' // 403
  | 'not-found' // 404
  | 'rate-limited' // 429
  | 'network' // connection refused, DNS, reset
  | 'timeout'
  | 'service' // 5xx from the service
  | 'keychain-unavailable' // no Secret Service / keychain
  | 'ffmpeg-missing'
  | 'ffmpeg-failed'
  | 'encoder-failed' // Onair's encoder process died mid-run
  | 'studio-failed' // the local studio could not start or died
  | 'media' // camera/mic/screen capture problems (renderer side)
  | 'busy' // e.g. already live
  | 'cancelled' // the creator stopped it (the setup test's Cancel)
  | 'disk-full' // Record on this computer: the folder's disk is full (the broadcast goes on)
  | 'local-recording' // Record on this computer could not start or go on for another reason
  | 'forbidden-sender' // IPC from a frame that is not ours
  | 'internal'

export interface AppError {
  code: AppErrorCode
  /** One sentence a person understands: what happened. */
  message: string
  /** What to do about it, when there is something to do. */
  hint?: string
  /** The field the error is about (validation), dotted path like `profiles.1.width`. */
  field?: string
  /** HTTP status from the service, when there was one. */
  status?: number
  /** For rate-limited: how long to wait. */
  retryAfterMs?: number
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: AppError }

export const ok = <T>(value: T): Result<T> => ({ ok: true, value })
export const fail = <T = never>(error: AppError): Result<T> => ({ ok: false, error })

/** Thrown inside the main process core for expected failures; converted to Result at the boundary. */
export class AppFailure extends Error {
  readonly error: AppError
  constructor(error: AppError) {
    super(error.message)
    this.name = 'AppFailure'
    this.error = error
  }
}
