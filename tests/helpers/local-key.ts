// The local studio's API key of an app's data folder, read from the keychain where main keeps it
// (studio-host.ts: one account per data folder). Tests that talk to an app's studio directly use it.
import { Keychain } from '../../src/main/core/keychain'
import { localKeyAccount, studioDataDir } from '../../src/main/core/studio-host'

/** The keychain account of the app whose data is in `appDataDir`. */
export const localKeyAccountOf = (appDataDir: string): string =>
  localKeyAccount(studioDataDir(appDataDir))

/** The key, or an error naming the folder when the keychain has none for it. */
export async function localStudioKey(appDataDir: string, service?: string): Promise<string> {
  const key = await new Keychain(service).get(localKeyAccountOf(appDataDir))
  if (!key) throw new Error(`the keychain holds no local studio key for ${appDataDir}`)
  return key
}
