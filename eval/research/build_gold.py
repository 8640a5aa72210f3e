"""Builds research-topics.jsonl from the hand-judged id lists below (titles are looked up
from the catalog so they cannot drift). Written blind: see README.md."""

import json
import pathlib

CAT = pathlib.Path(__file__).resolve().parents[3] / "shared/data/catalog/acl2020/papers.jsonl"
cat = {json.loads(line)["id"]: json.loads(line) for line in CAT.open()}


def P(s):
    return ["2020." + x for x in s.split()]


topics = [
    dict(
        id="sci-doc-citation-repr",
        split="dev",
        topic="Citation-informed representation learning of scientific documents: embedding research papers "
        "with signals from the citation graph so they can be used for paper recommendation, citation "
        "prediction or generation, and scientific literature search.",
        relevant=P(
            "acl-main.207 acl-main.447 acl-main.550 emnlp-main.407 acl-demos.36 findings-emnlp.78 "
            "acl-main.105 acl-demos.5 emnlp-main.341 emnlp-demos.18 acl-main.534 emnlp-main.648 "
            "acl-main.464 acl-main.699 acl-demos.27 findings-emnlp.332 findings-emnlp.304 "
            "emnlp-main.609 emnlp-main.139 findings-emnlp.428 findings-emnlp.158"
        ),
    ),
    dict(
        id="dialogue-state-tracking",
        split="dev",
        topic="Dialogue state tracking for multi-domain task-oriented dialogue: tracking slot-value belief "
        "states across turns (e.g. on MultiWOZ), including zero-shot, few-shot and data-efficient trackers.",
        relevant=P(
            "acl-main.5 acl-main.12 acl-main.53 acl-main.563 acl-main.567 acl-main.636 acl-main.637 "
            "emnlp-main.151 emnlp-main.243 emnlp-main.274 emnlp-main.651 findings-emnlp.68 "
            "findings-emnlp.95 findings-emnlp.142 findings-emnlp.277 findings-emnlp.400 "
            "emnlp-main.273 emnlp-main.740 emnlp-main.146 emnlp-main.66 emnlp-main.67 "
            "findings-emnlp.368 emnlp-main.408 acl-main.11 acl-srw.36 acl-main.186"
        ),
    ),
    dict(
        id="nlg-evaluation-metrics",
        split="dev",
        topic="Automatic evaluation metrics for natural language generation (machine translation, "
        "summarization, dialogue, story and caption generation) and how well they correlate with human judgments.",
        relevant=P(
            "acl-main.704 findings-emnlp.9 emnlp-main.528 acl-main.448 acl-main.113 acl-main.151 "
            "acl-main.327 emnlp-main.5 emnlp-main.8 emnlp-main.213 findings-emnlp.287 findings-emnlp.82 "
            "emnlp-main.205 acl-main.124 emnlp-main.751 emnlp-main.294 acl-main.445 acl-main.450 "
            "acl-main.454 emnlp-main.750 acl-main.64 acl-main.4 acl-main.55 acl-main.126 acl-main.220 "
            "acl-main.333 acl-main.568 acl-srw.27 emnlp-main.742 emnlp-main.736 acl-main.93"
        ),
    ),
    dict(
        id="bias-word-embeddings",
        split="heldout",
        topic="Measuring and mitigating social biases such as gender, racial or religious stereotypes in word "
        "embeddings and pretrained language representations.",
        relevant=P(
            "acl-main.484 acl-main.260 acl-main.405 acl-main.488 acl-main.647 emnlp-main.232 "
            "findings-emnlp.280 emnlp-main.154 emnlp-main.157 emnlp-main.595 acl-main.487 "
            "findings-emnlp.311 emnlp-main.556 acl-srw.8 findings-emnlp.7 acl-main.431 acl-main.485 "
            "acl-main.468 emnlp-main.209 acl-main.264 emnlp-main.64"
        ),
    ),
    dict(
        id="table-qa",
        split="heldout",
        topic="Question answering over tables and databases: answering natural-language questions against "
        "tabular data, via text-to-SQL semantic parsing or table-aware pretrained models.",
        relevant=P(
            "acl-main.398 acl-main.745 findings-emnlp.91 findings-emnlp.167 acl-main.84 acl-main.677 "
            "acl-main.742 acl-main.187 acl-demos.24 emnlp-main.29 emnlp-main.558 emnlp-main.560 "
            "emnlp-main.561 emnlp-main.562 emnlp-main.563 emnlp-main.564 findings-emnlp.201 "
            "findings-emnlp.364 findings-emnlp.438 emnlp-main.559 acl-main.210 acl-main.539 "
            "emnlp-main.126 emnlp-main.628 findings-emnlp.27 emnlp-demos.10"
        ),
    ),
    dict(
        id="low-resource-mt",
        split="heldout",
        topic="Neural machine translation for low-resource languages with little parallel data: back-translation "
        "and monolingual data, multilingual transfer, and unsupervised MT.",
        relevant=P(
            "acl-main.143 acl-main.252 acl-main.320 acl-main.324 acl-main.688 acl-main.150 acl-main.731 "
            "acl-main.148 acl-srw.11 acl-srw.15 acl-srw.22 acl-srw.25 acl-srw.34 acl-srw.37 "
            "emnlp-main.7 emnlp-main.43 emnlp-main.207 emnlp-main.214 emnlp-main.615 emnlp-main.474 "
            "emnlp-main.475 emnlp-main.210 findings-emnlp.182 findings-emnlp.195 findings-emnlp.223 "
            "findings-emnlp.283 findings-emnlp.319 findings-emnlp.371 findings-emnlp.379 findings-emnlp.162"
        ),
    ),
    dict(
        id="argument-mining",
        split="heldout",
        topic="Argument mining and computational argumentation: identifying claims, premises and argument "
        "structure in text, stance of arguments, argument quality and persuasiveness, and summarizing arguments.",
        relevant=P(
            "acl-main.298 acl-main.371 acl-main.399 acl-main.509 acl-main.511 acl-main.632 acl-main.633 "
            "acl-main.287 emnlp-main.1 emnlp-main.2 emnlp-main.3 emnlp-main.4 emnlp-main.225 "
            "emnlp-main.569 emnlp-main.716 findings-emnlp.29 findings-emnlp.47 emnlp-main.717 "
            "acl-main.157 acl-main.291 findings-emnlp.296 findings-emnlp.116 emnlp-main.605 "
            "findings-emnlp.431 acl-main.404 findings-emnlp.43"
        ),
    ),
    dict(
        id="factual-consistency-generation",
        split="heldout",
        topic="Factual consistency and hallucination in abstractive summarization and other conditional text "
        "generation: measuring, detecting and reducing content that is not supported by the source.",
        relevant=P(
            "acl-main.173 acl-main.450 acl-main.454 acl-main.458 acl-main.457 acl-main.123 "
            "emnlp-main.506 emnlp-main.749 emnlp-main.750 findings-emnlp.203 findings-emnlp.322 "
            "emnlp-main.33 emnlp-main.507 acl-main.101 findings-emnlp.76 acl-main.326 emnlp-main.212 "
            "acl-main.10 acl-main.641 findings-emnlp.22 findings-emnlp.190 acl-main.66 emnlp-main.89 "
            "emnlp-main.419 emnlp-main.230"
        ),
    ),
]
out = pathlib.Path(__file__).with_name("research-topics.jsonl")
with out.open("w") as f:
    for t in topics:
        ids = t["relevant"]
        assert len(ids) == len(set(ids)), t["id"]
        rel = [{"id": i, "title": cat[i]["title"]} for i in ids]
        f.write(
            json.dumps(
                {"id": t["id"], "topic": t["topic"], "split": t["split"], "relevant": rel},
                ensure_ascii=False,
            )
            + "\n"
        )
        print(t["id"], t["split"], len(rel))
