// Markdown with math (KaTeX) and clickable [n] citations; used by chat and, later, the wiki.
import ReactMarkdown, { type Components } from 'react-markdown'
import remarkMath from 'remark-math'
import rehypeKatex from 'rehype-katex'
import type { ReactNode } from 'react'
import { citationFromHref, linkCitations } from './citations'
import 'katex/dist/katex.min.css'

export function Markdown({ text, renderCitation, inline }: { text: string; renderCitation?: (n: number) => ReactNode; inline?: boolean }) {
  const components: Components = {
    a: ({ href, children }) => {
      const n = citationFromHref(href)
      if (n !== null && renderCitation) return <>{renderCitation(n)}</>
      if (n !== null) return <span>[{n}]</span>
      return (
        <a href={href} target="_blank" rel="noopener noreferrer" className="text-accent-700 underline dark:text-accent-300">
          {children}
        </a>
      )
    },
    ...(inline ? { p: ({ children }) => <>{children}</> } : {}),
  }
  return (
    <ReactMarkdown remarkPlugins={[remarkMath]} rehypePlugins={[rehypeKatex]} components={components}>
      {linkCitations(text)}
    </ReactMarkdown>
  )
}
