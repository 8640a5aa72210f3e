// A follow-up's question as it was searched: resolved against the conversation by the
// server (the previous turn's subject and papers), shown so the answer can be judged
// against what was actually looked for. Nothing is shown for a question searched as asked.
export function ResolvedQuestion({ text }: { text?: string | null }) {
  if (!text) return null
  return (
    <p className="text-xs text-stone-600 dark:text-stone-400" data-testid="answer-resolved-question">
      Searched as: <q className="italic">{text}</q>
    </p>
  )
}
