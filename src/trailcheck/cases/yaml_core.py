"""YAML with the YAML 1.2 core schema, for reading and writing dataset files alike.

PyYAML implements YAML 1.1, whose implicit types surprise in a dataset: ``no`` and ``on`` are
booleans, ``2026-06-19`` is a date object (so the same file in JSON would hold text), and ``1:20``
is the sexagesimal integer 80. The core schema types only ``null``, ``true``/``false``, decimal,
octal (``0o``) and hex (``0x``) integers and decimal floats; everything else is text, as JSON
would have it. Writing quotes every string that would read back as another type, under the core
schema or under YAML 1.1 (``"2026-06-19"``, ``"yes"``): what is written loads back equal here, and
the same in any other YAML reader.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

NULL_TAG = "tag:yaml.org,2002:null"
BOOL_TAG = "tag:yaml.org,2002:bool"
INT_TAG = "tag:yaml.org,2002:int"
FLOAT_TAG = "tag:yaml.org,2002:float"
STR_TAG = "tag:yaml.org,2002:str"
SEQ_TAG = "tag:yaml.org,2002:seq"
MAP_TAG = "tag:yaml.org,2002:map"
MERGE_TAG = "tag:yaml.org,2002:merge"

# (tag, pattern, first characters) in resolution order: an integer is tried before a float.
_CORE_RESOLVERS: tuple[tuple[str, str, str | list[str]], ...] = (
    (NULL_TAG, r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
    (BOOL_TAG, r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    (INT_TAG, r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", "-+0123456789"),
    (
        FLOAT_TAG,
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
        "-+0123456789.",
    ),
    # Merge keys are YAML 1.1, not core, but common in hand-written files (``<<: *defaults``).
    (MERGE_TAG, r"^<<$", "<"),
)


def _use_core_schema(cls: type[yaml.resolver.BaseResolver]) -> None:
    # Replaces, not extends, the class's table (add_implicit_resolver would copy the 1.1 one).
    cls.yaml_implicit_resolvers = {}
    for tag, pattern, first in _CORE_RESOLVERS:
        cls.add_implicit_resolver(tag, re.compile(pattern), list(first))


def _yaml11_tag(value: str) -> str:
    """The tag PyYAML's YAML 1.1 resolver gives a plain scalar."""
    table = yaml.resolver.Resolver.yaml_implicit_resolvers
    for tag, pattern in table.get(value[:1], []):
        if pattern.match(value):
            return str(tag)
    return STR_TAG


class CoreLoader(yaml.SafeLoader):
    """Safe loading with core-schema resolution. Only composing is used: :mod:`.yaml_source`
    builds values from the node tree itself, so that it knows every value's line."""


class CoreDumper(yaml.SafeDumper):
    """Safe dumping with core-schema resolution; multi-line text in block style (``|``)."""

    def resolve(self, kind: type[yaml.Node], value: Any, implicit: Any) -> Any:
        # types-pyyaml leaves BaseResolver.resolve unannotated.
        tag = super().resolve(kind, value, implicit)  # type: ignore[no-untyped-call]
        # The serializer asks with implicit (True, False) whether a plain scalar would read back
        # with the node's tag; answering with YAML 1.1's reading makes it quote such strings.
        if kind is yaml.ScalarNode and implicit[0] and tag == STR_TAG:
            return _yaml11_tag(value)
        return tag

    def ignore_aliases(self, data: Any) -> bool:
        # JSON data has no shared structure to keep: a value used twice is written twice.
        return True


_use_core_schema(CoreLoader)
_use_core_schema(CoreDumper)


def _libyaml_loader() -> type[yaml.SafeLoader] | None:
    """CoreLoader's twin on libyaml's parser (about 10x faster to compose), when it is built in.

    The C parser calls the same Python resolvers and gives the same marks.
    """
    base = getattr(yaml, "CSafeLoader", None)
    if base is None:
        return None
    loader: type[yaml.SafeLoader] = type("LibyamlCoreLoader", (base,), {})
    _use_core_schema(loader)
    return loader


LIBYAML_LOADER = _libyaml_loader()
# What reading composes with: libyaml when present, else the pure-Python parser.
COMPOSING_LOADER: type[yaml.SafeLoader] = LIBYAML_LOADER or CoreLoader


# YAML 1.1 line breaks (and the byte order mark) that PyYAML writes raw, unescaped, in every style
# but double quotes, and then reads back as something else.
_ESCAPE_ONLY = frozenset("\x85\u2028\u2029\ufeff")


def _represent_text(dumper: yaml.SafeDumper, text: str) -> yaml.ScalarNode:
    # The emitter falls back to a quoted style where a block cannot hold the text exactly.
    if _ESCAPE_ONLY.intersection(text):
        style: str | None = '"'
    else:
        style = "|" if "\n" in text else None
    return dumper.represent_scalar(STR_TAG, text, style=style)


CoreDumper.add_representer(str, _represent_text)


def dump_yaml(data: Any) -> str:
    """``data`` (JSON values) as a YAML document, keys in the given order."""
    return yaml.dump(
        data,
        Dumper=CoreDumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=False,
        width=100,
    )
