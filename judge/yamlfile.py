"""The one YAML reader of every configuration: ``judge.yaml``, a league file, a ``bot.yaml``.

YAML silently keeps the last of two equal keys (``seed: 1`` then ``seed: 2``
is seed 2), so a configuration edited in a hurry could run with a value
nobody meant: here a key written twice in one mapping is an error naming the
key and its line.  Only safe YAML is read (no Python objects).  What goes
wrong is one of two errors, which each caller words for its file:
:class:`YamlSyntaxError` (not YAML, or a key twice: PyYAML's message, which
shows the line) and :class:`YamlTooDeep` (nested too deep, or a number too
long for Python).
"""

from __future__ import annotations

from typing import Any

import yaml

from judge.inputfiles import excerpt


class YamlSyntaxError(ValueError):
    """Not valid YAML, or a key twice in one mapping; the text says where."""


class YamlTooDeep(ValueError):
    """Valid YAML that Python cannot hold: nested too deep, or a number too long."""


class _UniqueKeyLoader(yaml.SafeLoader):
    """SafeLoader that refuses a key written twice in one mapping."""


def _construct_mapping(loader: yaml.SafeLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node)  # type: ignore[no-untyped-call]
        try:
            dup = key in seen
            seen.add(key)
        except TypeError:  # an unhashable key: PyYAML says so itself below
            continue
        if dup:
            raise yaml.constructor.ConstructorError(
                None, None, f"the key {excerpt(key)} appears twice; keep one", key_node.start_mark
            )
    return loader.construct_mapping(node)


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def load_yaml(text: str, name: str | None = None) -> Any:
    """The value of a YAML document; ``name``: the file, named in the error's text."""
    loader = _UniqueKeyLoader(text)
    if name is not None:
        loader.name = name  # errors name the file, not "<unicode string>"
    try:
        return loader.get_single_data()
    except yaml.YAMLError as exc:
        raise YamlSyntaxError(str(exc)) from None
    except (RecursionError, ValueError) as exc:
        raise YamlTooDeep(excerpt(str(exc) or "nested too deep", 120)) from None
    finally:
        loader.dispose()
