"""Regenerate the built-in tables of docs/language.md (between its builtins markers) from the declarations."""

from pathlib import Path

from rulesdsl.model.builtins import builtin_reference

START = "<!-- generated from the built-ins' declarations: python docs/update_builtins.py -->\n"
END = "<!-- builtins:end -->"

if __name__ == "__main__":
    path = Path(__file__).with_name("language.md")
    text = path.read_text(encoding="utf-8")
    before, rest = text.split(START)
    path.write_text(before + START + builtin_reference(True) + END + rest.split(END, 1)[1], encoding="utf-8")
