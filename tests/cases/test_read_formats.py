"""Reading dataset files: YAML with the core schema, JSON with lines, and files on disk."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cases.reading import parse_problems, problems_of
from trailcheck.cases import Case, DatasetError, load_dataset, parse_dataset
from trailcheck.cases.yaml_core import LIBYAML_LOADER, CoreLoader
from trailcheck.cases.yaml_source import read_yaml

# --- YAML specifics ------------------------------------------------------------------------------


def test_yaml_is_read_with_the_core_schema_as_json_would_hold_it() -> None:
    dataset = parse_dataset(
        "name: d\n"
        "cases:\n"
        "  - id: a\n"
        "    input: hi\n"
        "    metadata:\n"
        "      answer: no\n"
        "      switch: on\n"
        "      day: 2026-06-19\n"
        "      lap: 1:20.472\n"
        "      octal: 0o17\n"
        "      hex: 0x1F\n"
        "      plain: 017\n"
        "      float: 1e3\n"
        "      nothing: ~\n"
        "      truth: True\n",
        format="yaml",
    )
    assert dataset.cases[0].metadata == {
        "answer": "no",
        "switch": "on",
        "day": "2026-06-19",
        "lap": "1:20.472",
        "octal": 15,
        "hex": 31,
        "plain": 17,
        "float": 1000.0,
        "nothing": None,
        "truth": True,
    }


def test_anchors_and_merge_keys_are_followed_explicit_keys_winning() -> None:
    dataset = parse_dataset(
        "name: d\n"
        "cases:\n"
        "  - &base\n"
        "    id: a\n"
        "    input: hi\n"
        "    policies: &rules [{name: forbidden, tool: delete_account}]\n"
        "  - <<: *base\n"
        "    id: b\n"
        "  - <<: [{id: c, split: holdout}, {id: ignored, input: later source loses}]\n"
        "    input: hello\n"
        "    policies: *rules\n",
        format="yaml",
    )
    a, b, c = dataset.cases
    assert (b.id, b.input, b.policies) == ("b", "hi", a.policies)
    assert (c.id, c.split, c.input) == ("c", "holdout", "hello")
    assert c.policies == a.policies


def test_yaml_duplicate_keys_are_reported_at_the_repeated_key() -> None:
    problems = parse_problems("name: d\ncases: []\nname: e\n")
    assert [(p.line, p.field, p.message) for p in problems] == [
        (3, "name", "duplicate key 'name' (first at line 1)")
    ]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("!!python/object:os.system x", "unsupported YAML tag !!python/object:os.system"),
        ("!!binary aGk=", "unsupported YAML tag !!binary"),
        ("!!set {a: null}", "unsupported YAML tag !!set"),
        (".inf", "'.inf' is not a finite number; JSON has no infinity or NaN"),
        ("!!bool maybe", "'maybe' is not a valid !!bool value"),
    ],
)
def test_values_json_cannot_hold_are_refused(value: str, message: str) -> None:
    problems = parse_problems(
        f"name: d\ncases:\n  - id: a\n    input: hi\n    metadata:\n      x: {value}\n"
    )
    assert [(p.line, p.case_id, p.field, p.message) for p in problems] == [
        (6, "a", "metadata.x", message)
    ]


def test_explicit_core_tags_are_honoured() -> None:
    dataset = parse_dataset(
        "name: d\ncases: [{id: a, input: !!str 12, metadata: {n: !!int '7', f: !!float '2'}}]\n",
        format="yaml",
    )
    assert dataset.cases[0].input == "12"
    assert dataset.cases[0].metadata == {"n": 7, "f": 2.0}


def test_keys_must_be_text() -> None:
    problems = parse_problems("name: d\ncases:\n  - id: a\n    input: hi\n    metadata: {1: one}\n")
    assert [(p.line, p.field, p.message) for p in problems] == [
        (5, "metadata", "a key must be text (quote it): '1'")
    ]


def test_a_recursive_alias_is_refused() -> None:
    problems = parse_problems(
        "name: d\ncases:\n  - id: a\n    input: hi\n    metadata: &m {self: *m}\n"
    )
    assert [(p.line, p.field, p.message) for p in problems] == [
        (5, "metadata.self", "an alias refers to a value that contains it")
    ]


def test_an_alias_bomb_is_refused_before_it_expands(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("trailcheck.cases.yaml_source.MAX_VALUES", 1000)
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 6)]
    problems = parse_problems("\n".join(lines) + "\n")
    assert [p.message for p in problems] == [
        "the document expands (through aliases) to more than 1,000 values"
    ]


def test_a_yaml_syntax_error_names_its_line() -> None:
    problems = parse_problems("name: d\ncases:\n  - id: a\n   input: [unclosed\n")
    assert len(problems) == 1
    assert problems[0].line == 4
    assert problems[0].message.startswith("not valid YAML: ")


def test_an_empty_file_and_several_documents_are_refused() -> None:
    assert [p.message for p in parse_problems("")] == ["the file holds no document"]
    problems = parse_problems("name: a\n---\nname: b\n")
    assert problems[0].message.startswith("not valid YAML: expected a single document")
    assert problems[0].line == 2


# --- JSON specifics ------------------------------------------------------------------------------


def test_json_lines_count_from_one_and_crlf_is_one_line_end() -> None:
    text = '{\r\n  "name": "d",\r\n  "cases": [\r\n    {"id": "a", "input": 5}\r\n  ]\r\n}\r\n'
    problems = parse_problems(text, format="json")
    assert [(p.line, p.case_id, p.field) for p in problems] == [(4, "a", "input")]


def test_a_json_syntax_error_names_its_line() -> None:
    problems = parse_problems('{\n  "name": "d",\n  "cases": [,]\n}\n', format="json")
    assert [(p.line, p.message) for p in problems] == [(3, "not valid JSON: Expecting value")]


def test_json_nan_is_refused() -> None:
    problems = parse_problems(
        '{"name": "d", "cases": [{"id": "a", "input": "x", "metadata": {"x": NaN}}]}', format="json"
    )
    assert [p.message for p in problems] == ["NaN is not JSON (JSON has no infinity or NaN)"]


def test_json_strings_with_escapes_read_as_the_standard_parser_reads_them() -> None:
    dataset = parse_dataset(
        '{"name": "d", "cases": [{"id": "a\\"b", "input": "caf\\u00e9 \\\\ \\n", "notes": "\\/"}]}',
        format="json",
    )
    assert (dataset.cases[0].id, dataset.cases[0].input) == ('a"b', "café \\ \n")
    assert dataset.cases[0].notes == "/"


# --- files ---------------------------------------------------------------------------------------


def test_a_byte_order_mark_is_not_content(tmp_path: Path) -> None:
    path = tmp_path / "d.json"
    path.write_bytes(b'\xef\xbb\xbf{"name": "d", "cases": [{"id": "a", "input": "hi"}]}')
    assert load_dataset(path).cases == [Case(id="a", input="hi")]


def test_unreadable_files_are_dataset_errors(tmp_path: Path) -> None:
    assert [p.message for p in problems_of(tmp_path / "absent.yaml")] == [
        "cannot read the file: No such file or directory"
    ]
    (tmp_path / "d.txt").write_text("name: d\n")
    assert [p.message for p in problems_of(tmp_path / "d.txt")] == [
        "unknown dataset file type; name it .yaml, .yml, .json"
    ]
    (tmp_path / "latin1.yaml").write_bytes(b"name: caf\xe9\n")
    assert problems_of(tmp_path / "latin1.yaml")[0].message.startswith("not UTF-8 text")


def test_yml_and_upper_case_suffixes_are_yaml(tmp_path: Path) -> None:
    for name in ("d.yml", "D.YAML"):
        (tmp_path / name).write_text("name: d\ncases: [{id: a, input: hi}]\n")
        assert load_dataset(tmp_path / name).cases[0].id == "a"


# --- the two YAML parsers ------------------------------------------------------------------------


@pytest.mark.parametrize("fixture", ["support_shop.yaml", "bad_support_shop.yaml"])
def test_libyaml_and_pure_python_parsing_read_alike(fixtures: Path, fixture: str) -> None:
    if LIBYAML_LOADER is None:
        pytest.skip("PyYAML is built without libyaml here")
    text = (fixtures / "datasets" / fixture).read_text()
    fast = read_yaml(text, fixture, loader=LIBYAML_LOADER)
    pure = read_yaml(text, fixture, loader=CoreLoader)
    assert fast.data == pure.data
    assert fast.lines == pure.lines
    assert fast.findings == pure.findings


@pytest.mark.parametrize("text", ["a: [1\n", "a: 1\n  b: 2\n", "a: 1\n---\nb: 2\n"])
def test_both_parsers_place_syntax_errors_on_the_same_line(text: str) -> None:
    loaders = [CoreLoader] if LIBYAML_LOADER is None else [CoreLoader, LIBYAML_LOADER]
    found = []
    for loader in loaders:
        with pytest.raises(DatasetError) as caught:
            read_yaml(text, "mem.yaml", loader=loader)
        found.append(caught.value.problems[0].line)
    assert len(set(found)) == 1
    assert found[0] is not None
