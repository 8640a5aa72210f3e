import { describe, expect, it } from 'vitest'
import { byRelation, contestedClaims, onlyRelated, type Claim, type Evidence } from './contested'

const ev = (relation: string, score = 0.5): Evidence => ({ relation, score, source_id: 's', source_title: 'S', chunk_id: 1, engine: null, rationale: null })
const claim = (id: string, ...evidence: Evidence[]): Claim => ({ id, source_id: 'x', text: id, quote: null, chunk_id: null, evidence })

describe('contradiction map', () => {
  it('lists only claims with both supporting and contradicting evidence, the most evenly split first', () => {
    const claims = [
      claim('supported', ev('supports'), ev('supports')),
      claim('lopsided', ev('supports'), ev('supports'), ev('supports'), ev('contradicts')),
      claim('even', ev('supports'), ev('contradicts')),
      claim('qualified', ev('qualifies'), ev('contradicts')),
    ]
    expect(contestedClaims(claims).map((c) => c.id)).toEqual(['even', 'lopsided'])
  })
  it('groups evidence by relation, unknown relations as related, best score first', () => {
    const g = byRelation(claim('c', ev('supports', 0.2), ev('supports', 0.9), ev('odd')))
    expect(g.supports.map((e) => e.score)).toEqual([0.9, 0.2])
    expect(g.related).toHaveLength(1)
  })
  it('knows when the engine judged nothing', () => {
    expect(onlyRelated([claim('a', ev('related')), claim('b')])).toBe(true)
    expect(onlyRelated([claim('a', ev('related'), ev('supports'))])).toBe(false)
    expect(onlyRelated([claim('a')])).toBe(false)
  })
})
