// Declared once, outside any component: React Flow re-mounts every node when nodeTypes changes.
import type { NodeTypes } from '@xyflow/react'
import { ClusterNode } from './cluster/ClusterNode'
import { ConceptNode } from './concept/ConceptNode'
import { SourceNode } from './source/SourceNode'
import { SynthesisNode } from './synthesis/SynthesisNode'

export const nodeTypes: NodeTypes = { source: SourceNode, concept: ConceptNode, synthesis: SynthesisNode, cluster: ClusterNode }
