// `npm start`: build, then the desktop app; where Electron cannot run here (no binary, no display) say so in
// one sentence and start the web shell instead. `npm start -- --web` (npm run start:web) goes straight there.
import { spawn, spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { dirname, join } from 'node:path'
import { electronBinary } from './electron-binary.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const web = process.argv.includes('--web')

if (process.env.ONAIR_SKIP_BUILD !== '1') {
  const build = spawnSync(
    process.execPath,
    [join(root, 'node_modules/electron-vite/bin/electron-vite.js'), 'build'],
    {
      cwd: root,
      stdio: ['ignore', 'ignore', 'inherit']
    }
  )
  if (build.status !== 0) {
    console.error('Onair could not be built (see the errors above).')
    process.exit(build.status ?? 1)
  }
}

function run(command, args, env = {}) {
  const child = spawn(command, args, {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, ...env }
  })
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig))
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)))
}

const electron = web ? null : electronBinary()
if (electron?.ok) {
  run(electron.path, [root])
} else {
  if (electron) console.log(`${electron.reason}, so Onair opens in your browser instead.`)
  run(process.execPath, [join(root, 'out/main/web.js')])
}
