// Diagnostic (E2E_PROFILE=1): where the main thread's time goes while the canvas opens a
// generated 2,000-node graph. CPU profile (CDP) aggregated by function, and the long tasks.
import { test } from '@playwright/test'
import { writeFileSync } from 'node:fs'
import { generateGraph } from './canvasGraph'

test.use({ trace: 'off', screenshot: 'off' })

test('canvas profile', async ({ browser, request }) => {
  test.skip(!process.env.E2E_PROFILE, 'diagnostic on demand')
  test.setTimeout(600_000)
  const n = Number(process.env.E2E_PROFILE_NODES ?? 2000)
  const ws = await (await request.post('/api/workspaces', { data: { name: 'Profile', description: 'generated graphs' } })).json()
  const graph = generateGraph(n)
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
  const page = await context.newPage()
  await page.route(`**/api/workspaces/${ws.id}/graph**`, (route) => route.fulfill({ json: graph }))
  await page.addInitScript(() => {
    const w = window as unknown as { __long: { start: number; duration: number }[] }
    w.__long = []
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) w.__long.push({ start: e.startTime, duration: e.duration })
    }).observe({ type: 'longtask', buffered: true })
  })
  const cdp = await context.newCDPSession(page)
  await cdp.send('Profiler.enable')
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 })
  await cdp.send('Profiler.start')
  await page.goto(`/w/${ws.id}/canvas?concepts=all`)
  // Polled in the page: a failing expect() takes an ARIA snapshot of the whole page per poll.
  await page.waitForFunction(() => document.querySelector('[data-testid="canvas"]')?.getAttribute('data-state') === 'ready', null, { timeout: 180_000, polling: 500 })
  await page.waitForTimeout(2500)
  const { profile } = await cdp.send('Profiler.stop')
  if (process.env.E2E_PROFILE_SHOT) await page.screenshot({ path: process.env.E2E_PROFILE_SHOT })
  const info = await page.evaluate(() => {
    const w = window as unknown as { __long: { start: number; duration: number }[] }
    const marks = performance.getEntriesByType('mark').map((m) => ({ name: m.name, t: Math.round(m.startTime) }))
    return { marks, long: w.__long.map((l) => ({ start: Math.round(l.start), duration: Math.round(l.duration) })), rendered: document.querySelectorAll('.react-flow__node').length }
  })
  const byId = new Map(profile.nodes.map((p) => [p.id, p]))
  const self = new Map<string, number>()
  const dt = profile.timeDeltas ?? []
  ;(profile.samples ?? []).forEach((id, i) => {
    const node = byId.get(id)!
    const f = node.callFrame
    const key = `${f.functionName || '(anon)'} ${f.url.split('/').pop()}:${f.lineNumber}`
    self.set(key, (self.get(key) ?? 0) + (dt[i] ?? 0) / 1000)
  })
  // Inclusive time per function, too (each sample counted once per distinct function on its stack).
  const parent = new Map<number, number>()
  for (const p of profile.nodes) for (const c of p.children ?? []) parent.set(c, p.id)
  const incl = new Map<string, number>()
  ;(profile.samples ?? []).forEach((id, i) => {
    const seen = new Set<string>()
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const f = byId.get(cur)!.callFrame
      const key = `${f.functionName || '(anon)'} ${f.url.split('/').pop()}:${f.lineNumber}`
      if (seen.has(key)) continue
      seen.add(key)
      incl.set(key, (incl.get(key) ?? 0) + (dt[i] ?? 0) / 1000)
    }
  })
  // Runs of busy samples (no idle sample between) of 50 ms or more: the long tasks, each
  // with the functions it spent most time in (self and inclusive).
  const keyOf = (id: number) => {
    const f = byId.get(id)!.callFrame
    return `${f.functionName || '(anon)'} ${f.url.split('/').pop()}:${f.lineNumber}`
  }
  const runs: { ms: number; samples: { id: number; dt: number }[] }[] = []
  let run: { ms: number; samples: { id: number; dt: number }[] } | null = null
  ;(profile.samples ?? []).forEach((id, i) => {
    const idle = byId.get(id)!.callFrame.functionName === '(idle)'
    const d = (dt[i + 1] ?? 0) / 1000
    if (idle) {
      if (run && run.ms >= 50) runs.push(run)
      run = null
      return
    }
    run ??= { ms: 0, samples: [] }
    run.ms += d
    run.samples.push({ id, dt: d })
  })
  const long = runs.map((r) => {
    const selfT = new Map<string, number>()
    const inclT = new Map<string, number>()
    for (const smp of r.samples) {
      selfT.set(keyOf(smp.id), (selfT.get(keyOf(smp.id)) ?? 0) + smp.dt)
      const seen = new Set<string>()
      for (let cur: number | undefined = smp.id; cur !== undefined; cur = parent.get(cur)) {
        const k = keyOf(cur)
        if (seen.has(k) || !/CanvasPage|index-|dist-/.test(k)) continue
        seen.add(k)
        inclT.set(k, (inclT.get(k) ?? 0) + smp.dt)
      }
    }
    const t = (m: Map<string, number>, k: number) => [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, k).map(([x, v]) => `${v.toFixed(0)}ms ${x}`)
    return { ms: Math.round(r.ms), self: t(selfT, 8), app: t(inclT, 25) }
  })
  console.log('LONG RUNS\n' + long.map((l) => `== ${l.ms} ms\n  self: ${l.self.join(' | ')}\n  app: ${l.app.join('\n       ')}`).join('\n'))
  const top = (m: Map<string, number>) => [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, 40).map(([k, v]) => `${v.toFixed(0).padStart(6)} ms  ${k}`)
  const out = { n, info, self: top(self), inclusive: top(incl) }
  writeFileSync(process.env.E2E_PROFILE_OUT ?? '/tmp/canvas-profile.json', JSON.stringify(out, null, 1))
  console.log(JSON.stringify(info), '\nSELF\n' + out.self.join('\n'), '\nINCLUSIVE\n' + out.inclusive.join('\n'))
  await context.close()
})
