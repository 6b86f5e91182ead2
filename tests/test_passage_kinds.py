"""Passage kinds: OpenStax problems and options, glossaries, PreTeXt and LaTeX exercises, headings; stored, migrated,
shown, and left out of retrieval unless retrieval.evidence_kinds brings them back. Ids never change."""

from __future__ import annotations

import json
import sqlite3

from conftest import REPO_ROOT, write_file
from veriground.cli import main
from veriground.config import IngestConfig, RetrievalConfig
from veriground.corpus.ingest import ingest_paths
from veriground.corpus.latex_markup import convert_tex
from veriground.corpus.normalize import normalize_text
from veriground.corpus.passage_kinds import classify_passages
from veriground.corpus.passages import split_passages
from veriground.corpus.pretext_markup import convert_ptx
from veriground.corpus.store import DB_FILE_NAME, SCHEMA_VERSION, CorpusStore
from veriground.retrieval.search import BM25Retriever
from veriground.schema import PASSAGE_KINDS

# Real snippets, OpenStax Physics (CC BY 4.0), as ../shared/datasets/domain-corpora/openstax-physics holds them.
OPENSTAX_QUIZ = """*Problem:*
What does it mean when motion is described as relative?

- It means that motion of any object is described relative to the motion of Earth.
- It means that motion of any object is described relative to the motion of any other object.
- It means that motion is independent of the frame of reference.
- It means that motion depends on the frame of reference selected."""
OPENSTAX_TRUE_FALSE = """*Problem:*
True or False If you want to reduce the acceleration of an object, you could increase the net external force.

- True
- False"""
OPENSTAX_GLOSSARY = """### Glossary

- **displacement**: the change in position of an object against a fixed axis
- **distance**: the length of the path actually traveled between an initial and a final position
- **kinematics**: the study of motion without considering its causes
- **magnitude**: size or amount"""
OPENSTAX_PROSE = (
    "A quantity, such as distance, that has magnitude (i.e., how big or how much) and sometimes a sign but does "
    "not take into account direction is called a scalar. A quantity, such as displacement, that has both "
    "magnitude and direction is called a vector."
)
OPENSTAX_PROBLEM_THEN_SECTION = f"*Problem:*\n\n#### Distance vs. Displacement\n\n{OPENSTAX_PROSE}"
OPENSTAX_PRACTICE = """### Practice Problems

*Problem:*
A bird flies with an average velocity of 7.5 m/s east from one branch to another in 2.4 s. It then pauses.

- 42 m west
- 6 m west
- 6 m east
- 42 m east"""
OPENSTAX_WORKED_SOLUTION = """**Solution: Solution**

The plus sign in the answer means that acceleration is to the right. This is a reasonable conclusion because the
train starts from rest and ends up with a velocity directed to the right (i.e., positive)."""

PTX_SECTION = """<section xml:id="sec-sets"><title>Sets</title>
<definition><p>A <term>set</term> is an unordered collection of objects, each of which appears once.</p></definition>
<exercise><title>Counting vertices</title>
<p>First, count the number of vertices and edges in each graph.</p>
<p>Number of vertices: <m>G_1</m>: <fillin/>.</p>
</exercise>
<p>Sets are the most basic structure in mathematics, and every other structure is built from them.</p>
</section>"""

TEX_SOURCE = r"""\section{Merge-Sort}
The merge-sort algorithm is a classic example of recursive divide and conquer.

\begin{exercise}
Illustrate the execution of merge-sort on the array 7, 4, 8, 2, 5, 3, 9.
\end{exercise}

Merge-sort runs in $O(n\log n)$ time in the worst case."""


def kinds_of(text: str, min_chars: int = 1) -> list[tuple[str, str]]:
    """(kind, passage text) of every passage, each block its own passage when min_chars is 1."""
    spans = split_passages(text, "d", min_chars=min_chars, max_chars=1500)
    kinds = classify_passages(text, [(span.char_start, span.char_end) for span in spans])
    return [(kind, text[span.char_start : span.char_end]) for span, kind in zip(spans, kinds, strict=True)]


def test_openstax_question_with_options_is_quiz_and_true_false_is_quiz():
    assert {kind for kind, _ in kinds_of(OPENSTAX_QUIZ, min_chars=200)} == {"quiz"}
    assert [kind for kind, _ in kinds_of(OPENSTAX_TRUE_FALSE, min_chars=200)] == ["quiz"]


def test_glossary_section_is_glossary_and_its_heading_is_a_heading():
    found = kinds_of(OPENSTAX_GLOSSARY)
    assert found[0] == ("heading", "### Glossary")
    assert {kind for kind, _ in found[1:]} == {"glossary"}
    assert [kind for kind, _ in kinds_of(OPENSTAX_GLOSSARY, min_chars=200)] == ["glossary"]


OPENSTAX_OBJECTIVES = """## Speed and Velocity

**Note: Section Learning Objectives**

By the end of this section, you will be able to do the following:

- Calculate the average speed of an object
- Relate displacement and average velocity"""


def test_learning_objectives_are_objectives_and_the_prose_after_them_is_text():
    found = kinds_of(f"{OPENSTAX_OBJECTIVES}\n\n{OPENSTAX_PROSE}")
    assert [kind for kind, _ in found] == ["heading", "heading", "objectives", "objectives", "text"]
    assert [kind for kind, _ in kinds_of(OPENSTAX_OBJECTIVES, min_chars=200)] == ["objectives"]
    # a list after prose that only mentions objectives stays text
    prose = "The objectives of the mission were many.\n\n- Reach orbit\n- Return safely"
    assert {kind for kind, _ in kinds_of(prose)} == {"text"}


def test_glossary_ends_at_the_next_section_heading():
    text = f"{OPENSTAX_GLOSSARY}\n\n## Speed and Velocity\n\n{OPENSTAX_PROSE}"
    assert [kind for kind, _ in kinds_of(text)][-2:] == ["heading", "text"]


def test_an_empty_problem_marker_before_a_section_leaves_its_prose_text():
    assert [kind for kind, _ in kinds_of(OPENSTAX_PROBLEM_THEN_SECTION, min_chars=200)] == ["text"]


def test_practice_problem_section_is_exercise_and_quiz_and_a_note_after_it_is_text():
    text = f"{OPENSTAX_PRACTICE}\n\n**Note: Mars Probe Explosion**\n\n{OPENSTAX_PROSE}"
    found = kinds_of(text)
    assert [kind for kind, _ in found] == ["heading", "exercise", "quiz", "heading", "text"]


def test_a_worked_example_solution_is_text():
    assert {kind for kind, _ in kinds_of(OPENSTAX_WORKED_SOLUTION, min_chars=200)} == {"text"}


def test_prose_enumerations_and_a_faq_question_with_a_list_stay_text():
    prose = (
        "There are two cases: (a) the list is empty, and (b) it is not. Why does this matter?\n\n"
        "What do bathroom scales measure?\n- the force of gravity on you\n- your weight, shown as a mass"
    )
    assert [kind for kind, _ in kinds_of(prose)] == ["text", "text"]


def test_pretext_exercise_is_exercise_and_definitions_stay_text():
    text = normalize_text(convert_ptx(PTX_SECTION).text)
    found = kinds_of(text)
    by_start = {passage.split("\n")[0][:20]: kind for kind, passage in found}
    assert by_start["## Sets"] == "heading"
    assert by_start["Definition. A set is"] == "text"
    assert by_start["Exercise: Counting v"] == "exercise"
    assert by_start["First, count the numb"[:20]] == "exercise"


def test_latex_exercise_environment_is_exercise_and_a_heading_alone_is_heading():
    text = normalize_text(convert_tex(TEX_SOURCE).text)
    found = kinds_of(text)
    assert found[0] == ("heading", "## Merge-Sort")
    assert [kind for kind, _ in found[1:]] == ["text", "exercise", "exercise"]
    assert classify_passages("### Merge-Sort", [(0, 14)]) == ["heading"]


def test_kinds_never_change_passage_ids_of_the_demo_corpus(corpus_dir):
    with CorpusStore(corpus_dir) as store:
        ingest_paths([REPO_ROOT / "src/veriground/demo_corpus/physics"], store, IngestConfig())
        passages = store.passages_of("physics/work-energy-theorem", 1)
        text = store.document_text("physics/work-energy-theorem", 1)
    expected = split_passages(text, "physics/work-energy-theorem", min_chars=200, max_chars=1500)
    assert [passage.passage_id for passage in passages] == [span.passage_id for span in expected]
    assert "physics/work-energy-theorem#4cc777737200" in {passage.passage_id for passage in passages}  # README's id
    assert {"text", "quiz", "exercise"} <= {passage.kind for passage in passages}


def test_search_leaves_out_quiz_passages_unless_asked(tmp_path, corpus_dir):
    write_file(tmp_path / "lib", "motion.md", f"{OPENSTAX_PROSE}\n\n{OPENSTAX_QUIZ}")
    with CorpusStore(corpus_dir) as store:
        ingest_paths([tmp_path / "lib"], store, IngestConfig(min_passage_chars=1))
        query = "motion of an object and its magnitude"
        default = BM25Retriever(store, RetrievalConfig()).retrieve(query, top_k=10)
        everything = BM25Retriever(store, RetrievalConfig(evidence_kinds=tuple(_ALL))).retrieve(query, top_k=10)
    assert default and {chunk.kind for chunk in default} == {"text"}
    assert {chunk.kind for chunk in everything} >= {"text", "quiz"}
    # The filtered list is exactly the unfiltered ranking without the left-out kinds, ranked 1..n again.
    assert [c.passage_id for c in default] == [c.passage_id for c in everything if c.kind == "text"]
    assert [c.rank for c in default] == list(range(1, len(default) + 1))


def test_filtered_top_k_goes_deeper_than_the_first_fetch(tmp_path, corpus_dir):
    # 30 quiz passages outrank the one text passage: the first 4 x k fetch holds no text, the exact one does.
    quizzes = "\n\n".join(f"*Problem:*\nWhich vector quantity {i} applies?\n\n- vector\n- scalar" for i in range(30))
    write_file(tmp_path / "lib", "vectors.md", f"{quizzes}\n\nA vector has magnitude and direction, {OPENSTAX_PROSE}")
    with CorpusStore(corpus_dir) as store:
        ingest_paths([tmp_path / "lib"], store, IngestConfig(min_passage_chars=1))
        hits = BM25Retriever(store, RetrievalConfig()).retrieve("vector scalar", top_k=1)
    assert len(hits) == 1 and hits[0].kind == "text" and hits[0].text.startswith("A vector has")


def test_chunks_carry_the_document_sha256_so_identical_files_share_it(tmp_path, corpus_dir):
    write_file(tmp_path / "a", "scalars.md", OPENSTAX_PROSE)
    write_file(tmp_path / "b", "copy.md", OPENSTAX_PROSE)
    with CorpusStore(corpus_dir) as store:
        ingest_paths([tmp_path / "a", tmp_path / "b"], store, IngestConfig())
        hits = BM25Retriever(store, RetrievalConfig()).retrieve("scalar magnitude direction", top_k=5)
        stored = store.document("a/scalars").sha256
    assert {hit.doc_id for hit in hits} == {"a/scalars", "b/copy"}
    assert {hit.doc_sha256 for hit in hits} == {stored}


def test_a_schema_1_store_is_migrated_with_kinds_and_unchanged_ids(tmp_path, corpus_dir):
    text = f"{OPENSTAX_OBJECTIVES}\n\n{OPENSTAX_PROSE}\n\n{OPENSTAX_QUIZ}\n\n{OPENSTAX_GLOSSARY}"
    write_file(tmp_path / "lib", "motion.md", text)
    with CorpusStore(corpus_dir) as store:
        ingest_paths([tmp_path / "lib"], store, IngestConfig(min_passage_chars=1))
        before = [(p.passage_id, p.kind) for p in store.passages_of("lib/motion", 1)]
        generation = store.generation
    connection = sqlite3.connect(corpus_dir / DB_FILE_NAME)
    connection.execute("ALTER TABLE passages DROP COLUMN kind")  # what a corpus ingested before kinds holds
    connection.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    connection.commit()
    connection.close()
    with CorpusStore(corpus_dir) as store:
        after = [(p.passage_id, p.kind) for p in store.passages_of("lib/motion", 1)]
        assert store.generation == generation + 1  # indexes and kind filters see the change
    assert after == before and {kind for _, kind in after} == set(_ALL)
    connection = sqlite3.connect(corpus_dir / DB_FILE_NAME)
    assert connection.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == (SCHEMA_VERSION,)
    connection.close()


def test_cli_shows_kinds_and_the_evidence_kinds_flag_brings_quiz_back(tmp_path, capsys):
    write_file(tmp_path / "lib", "motion.md", f"{OPENSTAX_PROSE}\n\n{OPENSTAX_QUIZ}")
    corpus = str(tmp_path / "c")
    assert main(["ingest", str(tmp_path / "lib"), "--corpus", corpus]) == 0
    capsys.readouterr()
    main(["search", "frame of reference Earth", "--corpus", corpus, "--json"])
    assert json.loads(capsys.readouterr().out) == []
    main(["search", "frame of reference Earth", "--corpus", corpus, "--json", "--evidence-kinds", "text,quiz"])
    hits = json.loads(capsys.readouterr().out)
    assert hits[0]["kind"] == "quiz" and len(hits[0]["doc_sha256"]) == 64
    main(["corpus", "passage", hits[0]["passage_id"], "--corpus", corpus])
    assert "kind quiz" in capsys.readouterr().out
    main(["corpus", "show", "lib/motion", "--corpus", corpus])
    assert "  quiz" in capsys.readouterr().out
    code = main(["search", "frame", "--corpus", corpus, "--evidence-kinds", "text,answers"])
    assert code != 0 and "retrieval.evidence_kinds" in capsys.readouterr().err


_ALL = PASSAGE_KINDS


def test_a_long_paragraph_after_a_pretext_investigation_is_the_book_text_again():
    source = """<subsection><title>Counting Derangements</title>
<investigation><p>For your senior prank, you switch the nameplates on 5 doors. In how many ways can this be done?</p>
</investigation>
<p>The advanced use of PIE has applications beyond sticks and stones. A <term>derangement</term> of <m>n</m>
elements is a permutation in which no element is in its original position. For example, there are six
permutations of three elements, but only two of them are derangements.</p></subsection>"""
    found = kinds_of(normalize_text(convert_ptx(source).text))
    assert [kind for kind, _ in found] == ["heading", "exercise", "text"]
