// Claims and their evidence grouped by relation; contested claims are those with both
// supporting and contradicting evidence (the contradiction map).
import type { Schemas } from '../../api/client'

export type Claim = Schemas['ClaimView']
export type Evidence = Schemas['EvidenceView']

export const RELATIONS = ['supports', 'contradicts', 'qualifies', 'extends', 'related'] as const
export type Relation = (typeof RELATIONS)[number]

export function byRelation(claim: Claim): Record<Relation, Evidence[]> {
  const out: Record<Relation, Evidence[]> = { supports: [], contradicts: [], qualifies: [], extends: [], related: [] }
  for (const e of claim.evidence) {
    const r = (RELATIONS as readonly string[]).includes(e.relation) ? (e.relation as Relation) : 'related'
    out[r].push(e)
  }
  for (const r of RELATIONS) out[r].sort((a, b) => b.score - a.score)
  return out
}

export function isContested(claim: Claim): boolean {
  const g = byRelation(claim)
  return g.supports.length > 0 && g.contradicts.length > 0
}

/** Contested claims, the most evenly split (then the most evidence) first. */
export function contestedClaims(claims: Claim[]): Claim[] {
  const balance = (c: Claim) => {
    const g = byRelation(c)
    return Math.min(g.supports.length, g.contradicts.length) / Math.max(g.supports.length, g.contradicts.length)
  }
  return claims.filter(isContested).sort((a, b) => balance(b) - balance(a) || b.evidence.length - a.evidence.length)
}

/** True when no evidence was judged (the offline engine links evidence as "related" only). */
export function onlyRelated(claims: Claim[]): boolean {
  const all = claims.flatMap((c) => c.evidence)
  return all.length > 0 && all.every((e) => e.relation === 'related')
}
