// The OS keychain (Secret Service / KWallet on Linux, Keychain on macOS, Credential Manager on
// Windows) through @napi-rs/keyring. Service "onair" unless ONAIR_KEYCHAIN_SERVICE says otherwise
// (tests use their own so they never touch the user's entries); account = connection id.
// There is no plain-text fallback: without a keychain the caller gets 'keychain-unavailable'.
import { AsyncEntry } from '@napi-rs/keyring'
import { AppFailure } from '../../shared/result'

const HINT =
  'Install and unlock a keyring: gnome-keyring or KWallet on Linux (a Secret Service must be running in your session). Onair never stores API keys in plain text.'

const PROBE_ACCOUNT = '__onair_probe__'

export class Keychain {
  readonly service: string
  private verified = false

  constructor(
    service?: string,
    private readonly timeoutMs = 10_000
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
    await this.run('reach', async () => {
      const probe = this.entry(PROBE_ACCOUNT)
      await probe.setPassword('probe', this.signal())
      await probe.deletePassword(this.signal())
    })
    this.verified = true
  }

  private entry(account: string): AsyncEntry {
    return new AsyncEntry(this.service, account)
  }

  private signal(): AbortSignal {
    return AbortSignal.timeout(this.timeoutMs)
  }

  private async run<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn()
    } catch (e) {
      const detail = (e as Error).message?.split('\n')[0] ?? String(e)
      throw new AppFailure({
        code: 'keychain-unavailable',
        message: `Could not ${what} the API key in the system keychain: ${detail}.`,
        hint: HINT
      })
    }
  }
}
