"""Which YAML documents are rule files: the language server checks those and stays silent on any other YAML."""

from __future__ import annotations

import re
from pathlib import PurePath

# yaml-language-server's modeline: a comment naming the JSON Schema the file follows
MODELINE = re.compile(r"^[ \t]*#[ \t]*yaml-language-server:[ \t]*\$schema=(\S*)", re.M)
RULES_SCHEMA = "rules.schema.json"
# a top-level key only a rule file or an overlay has, at the start of a line (a key nested deeper is indented)
TOP_LEVEL = re.compile(r"^(?:game|extends)[ \t]*:(?:[ \t]|$)", re.M)
SUFFIXES = (".rules.yaml", ".rules.yml")
FOLDER = "games"


def is_rule_file(file: str, text: str) -> bool:
    """Whether the document `file` holding `text` is a rule file: its modeline names the rules schema, or its name
    ends in .rules.yaml, or it lies under a folder named games/, or it has a top-level `game:` or `extends:`. A
    modeline naming another schema says it is not one, whatever else holds."""
    modeline = MODELINE.search(text)
    if modeline:
        return re.split(r"[/\\]", modeline.group(1))[-1] == RULES_SCHEMA
    path = PurePath(file.split("://", 1)[-1].replace("\\", "/"))
    if path.name.lower().endswith(SUFFIXES) or FOLDER in path.parts[:-1]:
        return True
    return TOP_LEVEL.search(text) is not None
