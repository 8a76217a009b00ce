// The OS keychain (Secret Service / KWallet on Linux, Keychain on macOS, Credential Manager on
// Windows) through @napi-rs/keyring. Service "onair" unless ONAIR_KEYCHAIN_SERVICE says otherwise
// (tests use their own so they never touch the user's entries); account = connection id.
// There is no plain-text fallback: without a keychain the caller gets 'keychain-unavailable'.
// On Linux the entries are pinned to the Secret Service: left to itself, the keyring library falls back
// to the kernel's keyring when none answers, which forgets every key at reboot (a connection would
// silently vanish). Without a Secret Service a save is refused, naming it and how to start one.
import { randomUUID } from 'node:crypto'
import { AsyncEntry, type EntryOptions } from '@napi-rs/keyring'
import { AppFailure, type AppError } from '../../shared/result'

const NO_PLAIN_TEXT = 'Onair never stores API keys in plain text.'
const HINTS: Partial<Record<NodeJS.Platform, string>> = {
  darwin: `Unlock your login keychain (Keychain Access) and try again. ${NO_PLAIN_TEXT}`,
  win32: `Windows Credential Manager must be available to your account; sign in to Windows normally and try again. ${NO_PLAIN_TEXT}`
}
const LINUX_HINT =
  'Start a Secret Service in your session and try again: gnome-keyring (`gnome-keyring-daemon --start --components=secrets`, or log in to a GNOME session), ' +
  `KWallet (a KDE session) or KeePassXC with its Secret Service integration on. ${NO_PLAIN_TEXT}`

/** What the D-Bus side says when no Secret Service is there (no bus, or no one owns the name). */
const NO_SECRET_SERVICE = /org\.freedesktop\.secrets|dbus|secret service/i
/**
 * Words of a Secret Service that answered: "Secret Service: no result found" (an entry that is not
 * there) names the service, but the service is there: that is not a missing one.
 */
const SERVICE_ANSWERED = /no result found|no matching entry/i

/** The failure a keychain operation ends in, in the creator's words for their OS. */
export function keychainFailure(platform: NodeJS.Platform, what: string, detail: string): AppError {
  const linux = platform !== 'darwin' && platform !== 'win32'
  const cause =
    linux && NO_SECRET_SERVICE.test(detail) && !SERVICE_ANSWERED.test(detail)
      ? `no Secret Service (org.freedesktop.secrets) answers on this session's D-Bus, and the kernel keyring Onair could fall back to forgets keys at reboot (${detail})`
      : detail
  return {
    code: 'keychain-unavailable',
    message: `Could not ${what} the API key in the system keychain: ${cause}.`,
    hint: linux ? LINUX_HINT : HINTS[platform]!
  }
}

/**
 * The probe entry's account: each check its own. With one shared name, two checks at once (the app
 * and a second Onair, or two reads in one process) deleted each other's entry, and the later delete
 * failed with the Secret Service's "no result found": a working keychain reported as missing.
 */
const probeAccount = (): string => `__onair_probe__${randomUUID()}`
/** Read on Linux only: a Secret Service, never the kernel keyring (lost at reboot). */
const ENTRY_OPTIONS: EntryOptions = { linux: { store: 'secret-service' } }

export class Keychain {
  readonly service: string
  private verified = false
  /** The check under way: asked again meanwhile, the same one answers. */
  private checking: Promise<void> | undefined

  constructor(
    service?: string,
    private readonly timeoutMs = 10_000,
    private readonly platform: NodeJS.Platform = process.platform
  ) {
    this.service = service || process.env.ONAIR_KEYCHAIN_SERVICE || 'onair'
  }

  async get(account: string): Promise<string | undefined> {
    const v = await this.run('read', () => this.entry(account).getPassword(this.signal()))
    // A missing Secret Service reads as "no entry": make sure there is a keychain at all.
    if (v === null || v === undefined) {
      await this.check()
      return undefined
    }
    return v
  }

  async set(account: string, secret: string): Promise<void> {
    await this.run('save', () => this.entry(account).setPassword(secret, this.signal()))
    this.verified = true
  }

  async delete(account: string): Promise<void> {
    await this.run('delete', () => this.entry(account).deletePassword(this.signal()))
  }

  /** Proves a keychain can store secrets here (write + delete of a probe entry); cached once true. */
  async check(): Promise<void> {
    if (this.verified) return
    this.checking ??= this.run('reach', async () => {
      const probe = this.entry(probeAccount())
      await probe.setPassword('probe', this.signal())
      await probe.deletePassword(this.signal())
    })
      .then(() => {
        this.verified = true
      })
      .finally(() => {
        this.checking = undefined
      })
    return this.checking
  }

  private entry(account: string): AsyncEntry {
    return new AsyncEntry(this.service, account, ENTRY_OPTIONS)
  }

  private signal(): AbortSignal {
    return AbortSignal.timeout(this.timeoutMs)
  }

  private async run<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn()
    } catch (e) {
      const detail = (e as Error).message?.split('\n')[0] ?? String(e)
      throw new AppFailure(keychainFailure(this.platform, what, detail))
    }
  }
}
