"""Regenerate the overlay part of schemas/rules.schema.json from the rule-file part ($defs/rules)."""

import json
from pathlib import Path

from rulesdsl.schema import with_overlays

if __name__ == "__main__":
    path = Path(__file__).resolve().parent.parent / "schemas" / "rules.schema.json"
    schema = with_overlays(json.loads(path.read_text(encoding="utf-8")))
    path.write_text(json.dumps(schema, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
