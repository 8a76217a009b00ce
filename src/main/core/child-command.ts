// How the app starts its own Node children (the local studio, the encoder process): the bundled
// script beside main's own when main runs bundled (out/main/<name>.js; under Electron with its own
// Node, ELECTRON_RUN_AS_NODE=1, so no separate node install is needed), or node with tsx on the
// TypeScript entry in dev and tests.
import { existsSync } from 'node:fs'
import { join } from 'node:path'

export interface ChildCommand {
  command: string
  args: string[]
  env?: Record<string, string>
}

/** The bundled script under Electron's or plain Node. */
export function bundledCommand(script: string): ChildCommand {
  return process.versions.electron
    ? { command: process.execPath, args: [script], env: { ELECTRON_RUN_AS_NODE: '1' } }
    : { command: process.execPath, args: [script] }
}

/**
 * name: the bundle's entry name (electron.vite.config.ts); source: its TypeScript entry from the
 * project's root. From source, this file is src/main/core/child-command.ts; bundled, it is inside
 * out/main/, beside the entries.
 */
export function appChildCommand(name: string, source: string): ChildCommand {
  const bundled = join(__dirname, `${name}.js`)
  if (__filename.endsWith('.js') && existsSync(bundled)) return bundledCommand(bundled)
  const root = join(__dirname, '..', '..', '..')
  return { command: process.execPath, args: ['--import', 'tsx', join(root, source)] }
}
