// Pre-compress the built assets (gzip, level 9) so the Python server can send them
// compressed without compressing on the fly (which would also buffer the NDJSON/SSE streams).
import { readdirSync, readFileSync, writeFileSync, statSync } from 'node:fs'
import { gzipSync, constants } from 'node:zlib'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist')
let count = 0
function walk(dir) {
  for (const name of readdirSync(dir)) {
    const file = path.join(dir, name)
    if (statSync(file).isDirectory()) walk(file)
    else if (/\.(js|css|html|svg|json|ttf)$/.test(name) && statSync(file).size > 1024) {
      writeFileSync(file + '.gz', gzipSync(readFileSync(file), { level: constants.Z_BEST_COMPRESSION }))
      count++
    }
  }
}
walk(dist)
console.log(`pre-compressed ${count} files`)
