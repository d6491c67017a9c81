"""The fields of a playground request, checked: its body read as bounded JSON, each field of the kind it must
be, or a refusal naming the field (told to the browser as it is, status 400)."""

from __future__ import annotations

import json
import re

from ..engine.serialize import parse_json
from .folder import Refused

REQUEST = "request"  # how the body of a request is named in messages (request:1:20: ...)
MAX_TEXT_ITEMS = 256  # items of a list of texts in a request (seats, agents, clicked cells)
MAX_SHORT_TEXT = 1_000  # characters of a move, an agent, a variant or a cell's name in a request
MAX_TEXT = 10_000  # characters of a path or another text not a rule file


def request_data(body: bytes) -> dict:
    """A request's JSON object, read with the limits of every untrusted JSON (nesting, digits) and no number
    JSON should not carry (1e999, NaN); a RulesError located at request:line:col otherwise."""
    try:
        decoded = body.decode("utf-8") if body else "{}"
    except UnicodeDecodeError as exc:
        raise Refused(f"the request is not UTF-8 text (byte {exc.start + 1})") from None
    data = parse_json(decoded, REQUEST, hint="the playground's page sends a JSON object of its fields", finite=True)
    if not isinstance(data, dict):
        raise Refused("send a JSON object (with the request's fields)")
    return data


_MISSING = object()


def text_field(data: dict, name: str, limit: int = MAX_TEXT, default=_MISSING) -> str:
    """A text field of at most `limit` characters, each of which a file can hold."""
    value = data.get(name, default)
    if value is _MISSING:
        raise Refused(f"missing field '{name}'")
    if not isinstance(value, str):
        raise Refused(f"'{name}' should be a text, not {_kind(value)}")
    if len(value) > limit:
        raise Refused(f"'{name}' is longer than {limit:,} characters")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise Refused(f"'{name}' holds a lone surrogate (\\ud800 to \\udfff), which no file can hold") from None
    return value


def optional_text(data: dict, name: str, limit: int = MAX_SHORT_TEXT) -> str | None:
    """A text field that may be left out, null or empty (then None)."""
    return text_field(data, name, limit, None) if data.get(name) not in (None, "") else None


def text_list(data: dict, name: str) -> list[str]:
    """A list of short texts (seats, agents, cells); [] when left out or null."""
    value = data.get(name)
    if value is None:
        return []
    if not isinstance(value, list) or len(value) > MAX_TEXT_ITEMS:
        raise Refused(f"'{name}' should be a list of at most {MAX_TEXT_ITEMS} texts")
    return [text_field({name: item}, name, MAX_SHORT_TEXT) for item in value]


def whole_number(data: dict, name: str, default: int | None = None) -> int:
    """A whole number field (as a number, or as digits in a text): of at most 20 digits."""
    value = data.get(name, default)
    if value is None:
        raise Refused(f"missing field '{name}'")
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, str) and re.fullmatch(r"-?[0-9]{1,20}", value.strip()):
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool) or abs(value) >= 10 ** 20:
        raise Refused(f"'{name}' should be a whole number (of at most 20 digits), not {_shown(value)}")
    return value


def optional_number(data: dict, name: str, least: int | None = None) -> int | None:
    """A whole number field that may be left out or null (then None); at least `least` when given."""
    if data.get(name) is None:
        return None
    value = whole_number(data, name)
    if least is not None and value < least:
        raise Refused(f"'{name}' should be {least} or more, not {value}")
    return value


def flag(data: dict, name: str) -> bool:
    """A true-or-false field; False when left out or null."""
    value = data.get(name)
    if value is None:
        return False
    if not isinstance(value, bool):
        raise Refused(f"'{name}' should be true or false, not {_kind(value)}")
    return value


def json_object(data: dict, name: str) -> dict:
    """An object field (the options); {} when left out or null."""
    value = data.get(name)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise Refused(f"'{name}' should be a JSON object, not {_kind(value)}")
    return value


def token_field(data: dict, name: str) -> str:
    """The token of a game, replay or simulation (whether it is the client's is the table's to say)."""
    value = data.get(name)
    if not isinstance(value, str) or not value:
        raise Refused(f"missing field '{name}' (the token the server gave)")
    return value


def viewer_field(data: dict) -> int | None:
    """The seat whose view is asked for (None: the playground chooses, see work.game_action)."""
    if data.get("viewer") in (None, ""):
        return None
    return whole_number(data, "viewer")


def _kind(value) -> str:
    return {dict: "an object", list: "a list", str: "a text", bool: "true or false", type(None): "null"}.get(
        type(value), "a number")


def _shown(value) -> str:
    shown = json.dumps(value) if not isinstance(value, str) else repr(value)
    return shown if len(shown) <= 24 else shown[:21] + "..."
