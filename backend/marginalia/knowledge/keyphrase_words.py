"""The word lists of the offline keyphrase extractor (:mod:`marginalia.knowledge.keyphrases`):
what splits phrases, which words start or end none, which single words are too generic,
and the words that name a kind of thing. Set by hand; see docs/EVAL.md for how they were
checked."""

from __future__ import annotations

from marginalia.knowledge.text import STOP_WORDS, wordset

DATASET_KEYWORDS = wordset("dataset datasets corpus corpora benchmark benchmarks treebank")

DATASET_SKIP = wordset(
    """
    the a an this that these those our their its we new large small public standard
    existing several various different multiple same each both all other two three four
    in on of for and with from to by using use uses used train training test testing
    annotated labeled unlabeled english multilingual synthetic real popular widely
    """
)

PHRASE_SPLIT = STOP_WORDS | wordset(
    """
    propose proposes proposed present presents presented introduce introduces introduced show
    shows showed shown demonstrate demonstrates demonstrated achieve achieves achieved improve
    improves outperform outperforms outperformed use uses used using obtain
    obtains obtained provide provides provided require requires required allow allows allowed
    enable enables enabled perform performs performed evaluate evaluates evaluated find finds
    found suggest suggests suggested indicate indicates indicated make makes made yield yields
    yielded consider considers considered compare compares compared study studies studied
    investigate investigates investigated explore explores explored focuses focused lead
    leads led help helps helped apply applies applied address addresses addressed describe
    describes described develop develops developed design designs aim aims aimed leverage
    leverages leveraged exploit exploits exploited remain remains remained report reports
    reported observe observes observed include includes included involve involves involved
    contain contains contained take takes took give gives gave called known see seen note
    noted like unlike significantly substantially considerably respectively finally firstly
    secondly lastly additionally specifically particularly especially generally typically
    usually recently previously currently widely highly largely mainly simply directly
    two three four five six seven eight nine ten also can could however paper work
    et al fig figure table section eq appendix designed trained brought bring brings
    cause causes caused reach reaches reached save saves saved reveal reveals revealed exhibit
    exhibits exhibited understand understands accelerate accelerates accelerated compress
    compresses compressed predict predicts predicted generate generates generated detect
    detects detected identify identifies identified extract extracts extracted analyze
    analyzes analyzed analyse analyses analysed measure measures measured estimate estimates
    estimated capture captures captured reduce reduces reduced increase increases increased
    decrease decreases decreased enhance enhances enhanced boost boosts boosted encode encodes
    encoded take taking makes making based across toward towards suffer suffers suffered
    benefit benefits benefited tend tends tended appear appears appeared seem seems seemed
    become becomes became remain achieve achieving proposing showing using via whose differ
    differs differed expensive handles computes relies need needs speeds yes no consists consist
    consisted felt feel feels represent represents represented populate populates populated
    eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen
    twenty thirty forty fifty hundred hundreds thousand thousands million millions
    """
)

EDGE_WORDS = wordset(
    """
    familiar standard potential appropriate future possible likely
    new novel existing recent different various several multiple many previous prior current
    proposed simple effective good better best strong stronger high higher low lower first
    second third main key important significant additional further specific overall same
    similar whole given respective corresponding certain particular possible available
    typical original final total able much little way better worse comparable remarkable
    great huge entire competitive promising superior notorious difficult easy slow fast
    faster slower smaller larger earlier later greater higher lower bigger
    """
)

GENERIC_UNIGRAMS = wordset(
    """
    approach approaches method methods model models result results task tasks performance data
    experiment experiments system systems problem problems information set sets number way ways
    case cases example examples baseline baselines state art terms term effect effects
    research challenge challenges question questions setting settings improvement improvements
    gain gains evaluation dataset datasets benchmark benchmarks corpus framework technique
    techniques level levels type types time part order fact point end form kind lot amount
    range variety issue issues aspect aspects property properties application applications
    quality accuracy score scores input inputs output outputs value values step steps stage
    stages idea ideas insight insights paper papers study analysis use users user human
    humans people world art training test tests sample samples size group groups
    """
)

NOMINAL_ING = wordset(
    """
    learning training embedding reasoning parsing tagging modeling modelling processing
    sampling ranking clustering pooling computing encoding decoding matching labeling
    labelling pretraining mining spelling reading meaning writing string answering
    understanding programming planning forecasting scheduling routing filtering hashing
    indexing retrieval smoothing pruning dropout masking prompting reranking captioning
    grounding linking chunking tokenizing tokenization
    """
)

ADJECTIVE_SUFFIXES = ("able", "ible", "ous", "ive", "ful", "less", "ical", "istic", "tic")

NOMINAL_ED = wordset(
    """
    supervised unsupervised semisupervised pretrained labeled labelled unlabeled unlabelled
    structured semistructured unstructured randomized randomised controlled mixed grounded
    weighted distributed embedded advanced integrated automated annotated
    """
)
"""Past participles that start established terms ("supervised learning", "randomized
controlled trial"); other ``-ed`` words start no phrase ("deployed scalable system")."""

ED_NOUNS = wordset("speed seed need feed embed bed breed red shed bleed greed weed deed")

KIND_HEADS = wordset(
    """
    system systems model models method methods approach framework tool tools toolkit
    library package software database corpus dataset benchmark algorithm architecture
    pipeline platform project program service
    """
)
"""What a named thing is ("ScienceParse system", "PAML package"): after a name, the phrase
is the name."""
