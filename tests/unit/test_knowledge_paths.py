from marginalia.knowledge.concept_graph import ConceptEdge
from marginalia.knowledge.paths import PathSource, plan_learning_path, reading_minutes
from marginalia.knowledge.topic_paths import plan_topic_paths
from marginalia.knowledge.topics import TopicCluster


def _edge(a: str, b: str, w: float = 1.0, t: str = "prerequisite") -> ConceptEdge:
    return ConceptEdge(a, b, t, w, "test")  # type: ignore[arg-type]


def test_prerequisites_come_first() -> None:
    sources = [
        PathSource(
            "flash",
            "FlashAttention",
            "",
            25_000,
            {"attention": 0, "flash-attention": 2},
            ("IO-aware tiling is 3x faster.",),
        ),
        PathSource("mha", "Multi-head attention", "", 12_500, {"multi-head-attention": 1}),
        PathSource("intro", "Attention basics", "", 100, {"attention": 0}),
    ]
    edges = [
        _edge("attention", "multi-head-attention", 2.0, "specialization"),
        _edge("multi-head-attention", "flash-attention", 1.0),
    ]
    plan = plan_learning_path(sources, edges)
    order = [s.source_id for s in plan.steps]
    assert order == ["intro", "mha", "flash"]
    steps = {s.source_id: s for s in plan.steps}
    assert steps["mha"].prerequisites == ("intro",)
    assert steps["flash"].prerequisites == ("mha",)
    assert steps["intro"].difficulty == "beginner"
    assert steps["mha"].difficulty == "intermediate"
    assert steps["flash"].difficulty == "intermediate"  # mean level 1.0
    assert steps["flash"].key_takeaways == ("IO-aware tiling is 3x faster.",)
    assert steps["flash"].concepts_covered == ("attention", "flash-attention")
    assert steps["flash"].new_concepts == ("flash-attention",)
    assert [s.reading_minutes for s in plan.steps] == [1, 10, 20]
    assert plan.broken_cycles == ()


def test_cycle_is_broken_at_the_lightest_edge_and_reported() -> None:
    sources = [
        PathSource("x", "X", concepts={"a": 1}),
        PathSource("y", "Y", concepts={"b": 1}),
        PathSource("z", "Z", concepts={"c": 1}),
    ]
    edges = [_edge("a", "b", 3.0), _edge("b", "c", 2.0), _edge("c", "a", 1.0)]
    plan = plan_learning_path(sources, edges)
    assert [s.source_id for s in plan.steps] == ["x", "y", "z"]
    assert plan.broken_cycles == ("z -> x (weight 1)",)
    assert any("cycles" in n for n in plan.notes)
    # equal weights: the lexicographically last dependency is dropped
    tie = plan_learning_path(sources[:2], [_edge("a", "b", 1.0), _edge("b", "a", 1.0)])
    assert tie.broken_cycles == ("y -> x (weight 1)",)
    assert [s.source_id for s in tie.steps] == ["x", "y"]


def test_reading_time_and_no_concepts() -> None:
    assert reading_minutes(0) == 1
    assert reading_minutes(12_500) == 10
    assert reading_minutes(13_800) == 11
    plan = plan_learning_path([PathSource("b", "B"), PathSource("a", "A")], [])
    assert [s.source_id for s in plan.steps] == ["a", "b"]
    assert all(s.difficulty == "intermediate" for s in plan.steps)
    assert plan.notes


def test_difficulty_is_relative_to_the_workspace_and_varied() -> None:
    from marginalia.knowledge.paths import difficulties

    # every mean sits between 0.8 and 1.5: absolute thresholds would call all intermediate
    means = {"a": (0, 1, 2, 1), "b": (1, 1, 1, 1), "c": (1, 2, 1, 2), "d": (2, 2, 1, 1)}
    sources = [
        PathSource(sid, sid, concepts={f"{sid}{i}": lv for i, lv in enumerate(levels)})
        for sid, levels in means.items()
    ]
    got = difficulties(sources)
    assert got == {"a": "beginner", "b": "beginner", "c": "intermediate", "d": "intermediate"}
    sources.append(PathSource("e", "e", concepts={"x": 2, "y": 2}))
    got = difficulties(sources)
    assert got["e"] == "advanced" and len(set(got.values())) == 3
    # all alike (or too few): the absolute thresholds
    same = [PathSource(s, s, concepts={"x": 1}) for s in "xyz"]
    assert set(difficulties(same).values()) == {"intermediate"}
    assert difficulties([PathSource("n", "n")]) == {"n": "intermediate"}


def test_prerequisites_name_their_concepts_and_unlinked_sources_order_by_year() -> None:
    sources = [
        PathSource("late", "B later", concepts={}, year=2021),
        PathSource("early", "A early", concepts={}, year=2010),
        PathSource("nodate", "C no date", concepts={}),
        PathSource("base", "Basics", concepts={"attention": 0}),
        PathSource("adv", "Advanced", concepts={"flash-attention": 2}),
    ]
    plan = plan_learning_path(sources, [_edge("attention", "flash-attention")])
    steps = {s.source_id: s for s in plan.steps}
    assert steps["adv"].prerequisites == ("base",)
    assert steps["adv"].prerequisite_concepts == {"base": ("attention",)}
    order = [s.source_id for s in plan.steps if s.source_id in {"late", "early", "nodate"}]
    assert order == ["early", "late", "nodate"]


def test_takeaways_are_the_sources_own_points() -> None:
    from marginalia.knowledge.learning_path import takeaways_of

    got = takeaways_of(
        [
            "Tkaczyk et al. (2018) report GROBID as the best among 10 tools for parsing.",
            "Evangelista et al. [17] found that exercise adherence was associated with outcomes.",
            "While the findings are significant it is also important to note its limitations.",
            "We report micro-F1 for ChemProt.",
            "Background: Knowledge regarding the best approaches to quality is lacking.",
            "We show that SPECTER outperforms a variety of competitive baselines.1",
            "We show that SPECTER outperforms a variety of competitive baselines.1",
            None,
        ]
    )
    assert got == [
        "Knowledge regarding the best approaches to quality is lacking.",
        "We show that SPECTER outperforms a variety of competitive baselines.",
    ]


def test_topics_are_read_one_after_another_and_unlinked_topics_share_one_note() -> None:
    sources = [
        PathSource("heart", "Heart failure", concepts={"heart-failure": 1}),
        PathSource("graph", "Literature graph", concepts={"literature-graph": 1}),
        PathSource("dvt", "Venous thrombosis", concepts={"dvt": 2}),
        PathSource("specter", "SPECTER", concepts={"citations": 2}),
    ]
    topics = [
        TopicCluster("t1", ("graph", "specter"), ("literature-graph",), "literature graph"),
        TopicCluster("t2", ("dvt", "heart"), ("dvt",), "deep venous thrombosis"),
    ]
    plan, steps = plan_topic_paths(sources, [], topics)
    assert [s.topic_id for s in steps] == ["t1", "t1", "t2", "t2"]  # never interleaved
    assert [s.step.position for s in steps] == [1, 2, 3, 4]
    assert plan.notes[0].startswith("read by topic (2 topics, never interleaved)")
    unlinked = [n for n in plan.notes if "no prerequisite" in n]
    assert len(unlinked) == 1  # one note naming both topics, not one per topic
    assert "“literature graph”" in unlinked[0] and "“deep venous thrombosis”" in unlinked[0]
