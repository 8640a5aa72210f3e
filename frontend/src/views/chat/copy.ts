import type { AnswerClaim, AnswerSource, AnswerSummary } from '../../api/ask'
import { normalize } from '../../lib/quotes'

/** An answer as Markdown: each claim with its marks and quote, then its references. */
export function answerMarkdown(question: string, answer: AnswerSummary, sources: AnswerSource[]): string {
  const lines = [`**Q:** ${question}`, '']
  if (answer.refused) {
    lines.push(answer.refusal ?? 'No answer.')
    if (answer.outcome === 'closest' && answer.evidence?.length) {
      lines.push('', '**Closest evidence**', '')
      for (const e of answer.evidence) lines.push(`- “${normalize(e.text)}” — ${e.document}${e.page ? `, p. ${e.page}` : ''}`)
    }
    return lines.join('\n') + '\n'
  }
  const cited = new Set<number>()
  for (const claim of answer.claims) {
    claim.citations.forEach((n) => cited.add(n))
    lines.push(claimLine(claim))
  }
  const refs = sources.filter((s) => cited.has(s.n)).sort((a, b) => a.n - b.n)
  if (refs.length) {
    lines.push('', '**References**', '')
    for (const s of refs) lines.push(`[${s.n}] ${reference(s)}`)
  }
  return lines.join('\n') + '\n'
}

function claimLine(claim: AnswerClaim): string {
  const marks = claim.citations.map((n) => `[${n}]`).join('')
  const quote = claim.quote && normalize(claim.quote) !== normalize(claim.text) ? `\n  > “${normalize(claim.quote)}”` : ''
  return `- ${claim.text.trim()} ${marks}${quote}`
}

export function reference(s: AnswerSource): string {
  const where = [s.page ? `p. ${s.page}${s.page_end && s.page_end !== s.page ? `–${s.page_end}` : ''}` : null, s.section_title]
    .filter(Boolean)
    .join(', ')
  return `${s.document}${where ? ` (${where})` : ''}`
}
