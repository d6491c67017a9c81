"""`rulesdsl lsp`: the language server (pygls over stdio): diagnostics, hover, completion, go-to-definition."""

from __future__ import annotations

import asyncio
from pathlib import Path

from ..errors import UsageError
from ..source import Document
from .checks import column, diagnostic, diagnostics, internal_problem, units
from .index import FileIndex, Symbol, is_code
from .rule_files import is_rule_file
from .workers import Workers

DEBOUNCE = 0.3  # seconds without typing before a changed buffer is checked
INSTALL = "the language server needs pygls: pip install 'rulesdsl[lsp]'"


def serve(version: str) -> int:
    """Run the language server (of rulesdsl `version`) on stdin and stdout until the client asks it to exit."""
    try:  # the optional extra 'lsp', imported only here: it takes a while, and no other command needs it
        from lsprotocol import types
        from lsprotocol.converters import get_converter
        from pygls.lsp.server import LanguageServer
    except ImportError:
        raise UsageError(INSTALL) from None
    workers = Workers()
    workers.start()  # now, while this process runs one thread: a fork each (see jail.py)
    try:
        server = LanguageServer("rulesdsl", version, text_document_sync_kind=types.TextDocumentSyncKind.Full)
        register(server, types, get_converter(), workers)
        server.start_io()
    finally:
        workers.close()
    return 0


class Editor:
    """What the server knows of each open document: the last index of its names that loaded, and the check
    waiting to run while the user types; and the workers that check documents."""

    def __init__(self, workers: Workers):
        self.indexes: dict[str, FileIndex] = {}
        self.loaded: dict[str, bool] = {}  # uri -> whether its current text loaded
        self.pending: dict[str, asyncio.Task] = {}
        self.workers = workers


def _kind(types, symbol_kind: str):
    """The LSP completion kind of one of our kinds of name."""
    kinds = types.CompletionItemKind
    return {"function": kinds.Function, "procedure": kinds.Function, "built-in": kinds.Function,
            "built-in effect": kinds.Function, "let": kinds.Constant, "data": kinds.Constant,
            "variable": kinds.Variable, "zone": kinds.Field, "move": kinds.Event, "step": kinds.EnumMember,
            "parameter": kinds.Variable, "local": kinds.Variable, "loop variable": kinds.Variable,
            "option": kinds.Property, "keyword": kinds.Keyword
            }.get(symbol_kind, kinds.Text)


def register(server, types, converter, workers: Workers) -> None:
    """Give a pygls server its handlers (a thin adapter: the work is in checks, index and workers). `types` is
    lsprotocol.types, `converter` lsprotocol's converter, `workers` started."""
    editor = Editor(workers)

    def encoding() -> str:
        kind = server.workspace.position_encoding
        return str(getattr(kind, "value", kind) or "utf-16")

    def publish(uri: str, found: list[dict], version: int | None) -> None:
        shown = [converter.structure(d, types.Diagnostic) for d in found]
        server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=shown, version=version))

    async def check(uri: str, delay: float) -> None:
        await asyncio.sleep(delay)
        document = server.workspace.get_text_document(uri)
        version, text, file = document.version, document.source, _file(document)
        if not is_rule_file(file, text):  # a CI workflow, a compose file...: no problems, names or hovers of ours
            editor.indexes.pop(uri, None)
            editor.loaded.pop(uri, None)
            publish(uri, [], version)
            return
        found = await asyncio.wrap_future(editor.workers.check(uri, version, file, text))
        if found is None or server.workspace.get_text_document(uri).version != version:
            return  # typed since, or closed: a newer check follows, or none is wanted
        problems, index = found
        editor.loaded[uri] = index is not None
        if index is not None:
            editor.indexes[uri] = index
        publish(uri, diagnostics(problems, file, text, encoding()), version)

    async def check_or_say(uri: str, delay: float) -> None:
        """check(), and a failure inside the server as one diagnostic rather than silence."""
        try:
            await check(uri, delay)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - a bug in rulesdsl: said in the editor, and the server lives on
            publish(uri, [diagnostic(internal_problem(exc, uri), uri, [])], None)

    def schedule(uri: str, delay: float) -> None:
        waiting = editor.pending.pop(uri, None)
        if waiting is not None:
            waiting.cancel()
        # a check of an older version is stopped at once (its worker is free sooner), not when this one starts
        editor.workers.cancel(uri, keep=server.workspace.get_text_document(uri).version)
        editor.pending[uri] = asyncio.ensure_future(check_or_say(uri, delay))

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    async def did_open(ls, params: types.DidOpenTextDocumentParams):
        schedule(params.text_document.uri, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    async def did_change(ls, params: types.DidChangeTextDocumentParams):
        schedule(params.text_document.uri, DEBOUNCE)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    async def did_save(ls, params: types.DidSaveTextDocumentParams):
        schedule(params.text_document.uri, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls, params: types.DidCloseTextDocumentParams):
        uri = params.text_document.uri
        waiting = editor.pending.pop(uri, None)
        if waiting is not None:
            waiting.cancel()
        editor.workers.cancel(uri)
        editor.indexes.pop(uri, None)
        editor.loaded.pop(uri, None)
        publish(uri, [], None)

    def at(uri: str, where: types.Position):
        """(index, file, 1-based line, 1-based column) of a position in an open document, or None."""
        index = editor.indexes.get(uri)
        if index is None:
            return None
        document = server.workspace.get_text_document(uri)
        lines = document.source.splitlines()
        text = lines[where.line] if where.line < len(lines) else ""
        return index, _file(document), where.line + 1, column(text, where.character, encoding()) + 1

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls, params: types.HoverParams):
        found = at(params.text_document.uri, params.position)
        if found is None:
            return None
        index, file, line, col = found
        symbol = index.symbol_at(file, line, col)
        text = symbol.hover() if symbol is not None else index.key_description(file, line, col)
        if not text:
            return None
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text))

    @server.feature(types.TEXT_DOCUMENT_COMPLETION,
                    types.CompletionOptions(trigger_characters=["(", " ", ",", "."]))
    def completion(ls, params: types.CompletionParams):
        uri = params.text_document.uri
        found = at(uri, params.position)
        if found is None:
            return types.CompletionList(is_incomplete=False, items=[])
        index, file, line, col = found
        place = index.doc.string_at(file, line, col) if editor.loaded.get(uri) else None
        if place is None and editor.loaded.get(uri):
            return types.CompletionList(is_incomplete=False, items=[])  # not in a string value
        path, before = (place[0], index.doc.value(place[0])[: place[1]]) if place else (None, "")
        if path is not None and not is_code(path):
            return types.CompletionList(is_incomplete=False, items=[])
        items = [_item(types, s) for s in index.completions(path, before)]
        return types.CompletionList(is_incomplete=False, items=items)

    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    def definition(ls, params: types.DefinitionParams):
        found = at(params.text_document.uri, params.position)
        if found is None:
            return None
        index, file, line, col = found
        symbol = index.symbol_at(file, line, col)
        if symbol is None or symbol.location is None or not symbol.location.line:
            return None
        loc = symbol.location
        text = _line(index.doc, loc.file, loc.line)
        start = types.Position(line=loc.line - 1, character=units(text[: loc.col - 1], encoding()))
        end = types.Position(line=start.line, character=start.character + units(symbol.name, encoding()))
        return types.Location(uri=_uri(params.text_document.uri, file, loc.file), range=types.Range(start, end))


def _item(types, symbol: Symbol):
    """The completion item of a name."""
    return types.CompletionItem(label=symbol.name, kind=_kind(types, symbol.kind),
                                detail=f"{symbol.signature} ({symbol.kind})",
                                documentation=types.MarkupContent(kind=types.MarkupKind.Markdown, value=symbol.hover()))


def _file(document) -> str:
    """The path a document is checked as (its 'extends:' is resolved from it)."""
    return str(document.path or document.uri)


def _line(doc: Document, file: str, line: int) -> str:
    """The text of a line of one of the files a loaded document was read from."""
    for info in doc.nodes.values():
        if info.loc.file == file:
            return info.lines[line - 1] if 0 < line <= len(info.lines) else ""
    return ""


def _uri(uri: str, file: str, target: str) -> str:
    """The URI of `target`: the open document's own, or another file's (an overlay's base)."""
    return uri if target == file else Path(target).resolve().as_uri()
