// Runs a TypeScript entry with tsx: `node scripts/run-ts.mjs <file.ts> [args...]`. stdio is inherited
// and SIGINT/SIGTERM are forwarded, so the child can finish its work; our exit code is the child's.
import { spawn } from 'node:child_process'
import { createRequire } from 'node:module'

const [file, ...args] = process.argv.slice(2)
if (!file) {
  console.error('usage: node scripts/run-ts.mjs <file.ts> [args...]')
  process.exit(2)
}
const require = createRequire(import.meta.url)
const tsxCli = require.resolve('tsx/cli')
const child = spawn(process.execPath, [tsxCli, file, ...args], { stdio: 'inherit' })
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    if (child.exitCode === null) child.kill(sig)
  })
}
child.on('exit', (code, signal) => {
  process.exit(code ?? (signal ? 1 : 0))
})
