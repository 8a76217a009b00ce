// What a keychain failure says, per OS (the platform is injected: macOS and Windows cannot run here).
import { describe, expect, it } from 'vitest'
import { keychainFailure } from '../../../src/main/core/keychain'

const NO_SERVICE =
  'Platform failure: DBus error: The name org.freedesktop.secrets was not provided by any .service files'

describe('keychainFailure', () => {
  it('on Linux, a missing Secret Service is named, with how to start one', () => {
    const e = keychainFailure('linux', 'save', NO_SERVICE)
    expect(e.code).toBe('keychain-unavailable')
    expect(e.message).toMatch(
      /^Could not save the API key in the system keychain: no Secret Service \(org\.freedesktop\.secrets\) answers/
    )
    expect(e.message).toContain('forgets keys at reboot')
    expect(e.hint).toContain('gnome-keyring-daemon --start --components=secrets')
    expect(e.hint).toContain('never stores API keys in plain text')
  })

  it('on Linux, another failure (a locked keyring) is passed on as it is', () => {
    const e = keychainFailure('linux', 'read', "Couldn't access platform storage: prompt dismissed")
    expect(e.message).toBe(
      "Could not read the API key in the system keychain: Couldn't access platform storage: prompt dismissed."
    )
    expect(e.hint).toContain('Secret Service')
  })

  it('on Linux, a Secret Service that answered "no result found" is not called missing', () => {
    const e = keychainFailure(
      'linux',
      'delete',
      'Platform failure: Secret Service: no result found'
    )
    expect(e.message).toBe(
      'Could not delete the API key in the system keychain: Platform failure: Secret Service: no result found.'
    )
    expect(e.message).not.toContain('no Secret Service')
  })

  it('on macOS and Windows the hint names their keychain, never a Secret Service', () => {
    const mac = keychainFailure('darwin', 'save', 'User interaction is not allowed')
    expect(mac.hint).toContain('login keychain')
    expect(mac.message).not.toContain('Secret Service')
    const win = keychainFailure('win32', 'save', 'dbus-like words do not matter here')
    expect(win.hint).toContain('Credential Manager')
    expect(win.message).toContain('dbus-like words do not matter here')
    expect(win.message).not.toContain('org.freedesktop.secrets')
  })
})
