// Generated workspace-like graphs for the canvas benchmark and profile (not a test file:
// Playwright forbids one test file importing another).

function rng(seed: number) {
  let s = seed >>> 0
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    return s / 2 ** 32
  }
}

/** A workspace-like graph: ~25% sources, concepts on three levels, in components of 10–200 nodes. */
export function generateGraph(n: number, seed = 7) {
  const r = rng(seed)
  const nodes: { id: string; type: string; label: string; level?: number; cluster_id?: string | null; data: Record<string, unknown> }[] = []
  const edges: { id: string; source: string; target: string; type: string; weight: number }[] = []
  let made = 0
  let comp = 0
  while (made < n) {
    const size = Math.min(n - made, 10 + Math.floor(r() * 190))
    const sources = Math.max(1, Math.round(size * 0.25))
    const concepts = size - sources
    const byLevel: string[][] = [[], [], []]
    for (let i = 0; i < concepts; i++) {
      const level = i < concepts * 0.3 ? 0 : i < concepts * 0.7 ? 1 : 2
      const id = `concept:c${comp}-${i}`
      nodes.push({ id, type: 'concept', label: `concept ${comp}.${i}`, level, data: { sources: 1 + Math.floor(r() * 5) } })
      if (level > 0 && byLevel[level - 1]!.length) {
        const parents = byLevel[level - 1]!
        const p = parents[Math.floor(r() * parents.length)]!
        edges.push({ id: `prerequisite:${p}:${id}`, source: p, target: id, type: r() < 0.7 ? 'prerequisite' : 'specialization', weight: 1 })
      }
      byLevel[level]!.push(id)
    }
    const all = byLevel.flat()
    for (let i = 0; i < sources; i++) {
      const id = `source:00000000-0000-4000-8000-${String(comp).padStart(4, '0')}${String(i).padStart(8, '0')}`
      nodes.push({ id, type: 'source', label: `Generated paper ${comp}.${i} on a topic`, data: { year: 2010 + Math.floor(r() * 15), quality: 40 + r() * 50 } })
      const k = Math.min(all.length, 2 + Math.floor(r() * 3))
      const seen = new Set<string>()
      for (let j = 0; j < k; j++) {
        const c = all[Math.floor(r() * all.length)]!
        if (seen.has(c)) continue
        seen.add(c)
        edges.push({ id: `discusses:${id}:${c}`, source: id, target: c, type: 'discusses', weight: 1 })
      }
      if (all.length === 0 && i > 0) edges.push({ id: `similar:${id}`, source: nodes[nodes.length - 2]!.id, target: id, type: 'similar', weight: 1 })
    }
    made += size
    comp++
  }
  return { nodes, edges }
}
