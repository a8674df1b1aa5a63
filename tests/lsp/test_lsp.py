"""End-to-end tests of `lanes lsp` with pytest-lsp: a real server process per
test, driven over stdio like an editor. Run with

    LANES=target/debug/lanes .venv/bin/python -m pytest tests/lsp
"""

import asyncio
import json
import os
import pathlib
import shutil
import subprocess

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.exceptions import JsonRpcContentModified
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
LANES = os.environ.get("LANES") or str(ROOT / "target" / "debug" / "lanes")
CONVOLUTION = (ROOT / "examples" / "convolution.cl").read_text()

pytestmark = pytest.mark.asyncio(loop_scope="function")

# A divergent `if` without else: *Guard with any()* is offered on it.
BRANCHY = """__kernel void scale(__global float *a, int n)
{
    int i = get_global_id(0);
    if (a[i] > 0.0f) {
        a[i] = a[i] * 2.0f;
    }
}
"""


# LANES_LSP_TEST_PANIC enables the `lanes.test.panic` command (a panic inside a
# request, see test_panic_is_an_internal_error).
@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=[LANES, "lsp"],
        server_env=dict(os.environ, LANES_LSP_TEST_PANIC="1"),
    )
)
async def client(lsp_client: LanguageClient, tmp_path: pathlib.Path):
    caps = client_capabilities("visual-studio-code")
    lsp_client.init_result = await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=caps,
            workspace_folders=[types.WorkspaceFolder(uri=tmp_path.as_uri(), name="ws")],
            initialization_options={"target": "avx512skx-x16"},
        )
    )
    lsp_client.tmp = tmp_path

    # pytest-lsp's client does not implement the refresh requests the VS Code
    # capabilities announce; answer them as VS Code would.
    for method in (
        types.WORKSPACE_SEMANTIC_TOKENS_REFRESH,
        types.WORKSPACE_INLAY_HINT_REFRESH,
        types.WORKSPACE_CODE_LENS_REFRESH,
    ):
        lsp_client.feature(method)(lambda *args: None)

    # Every publishDiagnostics, in order (`logged` scans it, so that a
    # notification arriving before the wait starts is not missed).
    # pytest-lsp registers its own handler; ours wraps it.
    lsp_client.published_log = []
    features = lsp_client.protocol.fm.features
    default = features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]

    def record(params: types.PublishDiagnosticsParams):
        lsp_client.published_log.append(params)
        return default(params)

    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = record
    yield
    await lsp_client.shutdown_session()


# ---------------------------------------------------------------------------
# helpers


async def published(client: LanguageClient, uri: str, version: int, timeout=60.0):
    """The diagnostics the server pushes for `uri` at `version`."""

    async def wait():
        while True:
            params = await client.wait_for_notification(
                types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS
            )
            if params.uri == uri and params.version == version:
                return params.diagnostics

    return await asyncio.wait_for(wait(), timeout)


def write(client, name: str, text: str) -> str:
    path = client.tmp / name
    path.write_text(text)
    return path.as_uri()


async def open_doc(client, name: str, text: str, version: int = 1):
    uri = write(client, name, text)
    waiter = asyncio.ensure_future(published(client, uri, version))
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="opencl", version=version, text=text
            )
        )
    )
    return uri, await waiter


def offset_of(text: str, line: int, col: int) -> int:
    lines = text.split("\n")
    return sum(len(l) + 1 for l in lines[:line]) + col


def position_of(text: str, needle: str, nth: int = 0, delta: int = 0) -> types.Position:
    at = -1
    for _ in range(nth + 1):
        at = text.index(needle, at + 1)
    at += delta
    line = text.count("\n", 0, at)
    col = at - (text.rfind("\n", 0, at) + 1)
    return types.Position(line=line, character=col)


def apply_edits(text: str, edits) -> str:
    spans = sorted(
        (
            offset_of(text, e.range.start.line, e.range.start.character),
            offset_of(text, e.range.end.line, e.range.end.character),
            e.new_text,
        )
        for e in edits
    )
    out, at = [], 0
    for s, t, new in spans:
        out.append(text[at:s])
        out.append(new)
        at = t
    out.append(text[at:])
    return "".join(out)


def analysis_only(ds):
    """Without the precondition diagnostics: those arrive later, computed in
    the background, and are kept across edits that do not change the
    kernel's analysis, so when they appear depends on timing."""
    return [d for d in ds if d.code not in ("L0301", "L0302")]


async def logged(client: LanguageClient, uri: str, version: int, pred=lambda ds: True, timeout=120.0):
    """The first diagnostics pushed for `uri` at `version` that satisfy
    `pred`, from the start of the session (none is missed)."""

    async def wait():
        while True:
            for p in client.published_log:
                if p.uri == uri and p.version == version and pred(p.diagnostics):
                    return p.diagnostics
            await asyncio.sleep(0.02)

    return await asyncio.wait_for(wait(), timeout)


def having(*codes):
    return lambda ds: any(d.code in codes for d in ds)


def key(d: types.Diagnostic):
    related = [
        (r.location.uri, r.location.range.start.line, r.location.range.start.character, r.message)
        for r in d.related_information or []
    ]
    return (
        d.range.start.line,
        d.range.start.character,
        d.range.end.line,
        d.range.end.character,
        d.severity,
        d.code,
        d.message,
        tuple(related),
    )


async def change(client, uri, version, changes):
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=changes,
        )
    )


def whole(text):
    return types.TextDocumentContentChangeWholeDocument(text=text)


def partial(text, start, end, new):
    (sl, sc), (el, ec) = start, end
    return types.TextDocumentContentChangePartial(
        range=types.Range(
            start=types.Position(line=sl, character=sc),
            end=types.Position(line=el, character=ec),
        ),
        text=new,
    )


# ---------------------------------------------------------------------------
# capabilities


async def test_initialize_advertises_capabilities(client: LanguageClient):
    caps = client.init_result.capabilities
    assert caps.text_document_sync.change == types.TextDocumentSyncKind.Incremental
    assert list(caps.semantic_tokens_provider.legend.token_modifiers) == ["uniform", "varying"]
    assert set(caps.execute_command_provider.commands) == {
        "lanes.build",
        "lanes.showVectorIR",
        "lanes.showAsm",
        "lanes.explain",
    }
    assert caps.rename_provider.prepare_provider is True


async def test_diagnostics_of_divergent_loop(client: LanguageClient):
    _, diags = await open_doc(client, "convolution.cl", CONVOLUTION)
    loop = [d for d in diags if d.code == "L0201"]
    assert len(loop) == 1, diags
    d = loop[0]
    # `for (int i = left; ...` is line 55 (1-based).
    assert d.range.start.line == 54
    assert d.severity == types.DiagnosticSeverity.Warning
    # No link from a build tree (test_commands.py tests the installed one).
    assert d.code_description is None
    assert d.related_information, "the reason chain is related information"
    assert any("get_global_id" in CONVOLUTION.split("\n")[r.location.range.start.line] for r in d.related_information)
    assert sum(1 for d in diags if d.code == "L0202") == 2


async def test_incremental_edits_equal_reopening(client: LanguageClient):
    uri, _ = await open_doc(client, "convolution.cl", CONVOLUTION)
    text = CONVOLUTION
    steps = [
        # break the syntax, then fix it again; rename a variable; add a line
        ((42, 0), (42, 0), "    int broken = ;\n"),
        ((42, 0), (43, 0), ""),
        ((38, 8), (38, 9), "xx"),
        ((38, 8), (38, 10), "x"),
        ((46, 0), (46, 0), "    int extra = x * 2;\n"),
        ((0, 0), (0, 2), "/*"),
        ((0, 0), (0, 2), "//"),
    ]
    version = 1
    for start, end, new in steps:
        version += 1
        await change(client, uri, version, [partial(text, start, end, new)])
        text = apply_edits(
            text,
            [types.TextEdit(range=partial(text, start, end, new).range, new_text=new)],
        )
    # several changes in one notification, applied in order
    version += 1
    two = [partial(text, (46, 0), (47, 0), ""), partial(text, (0, 0), (0, 0), "// top\n")]
    await change(client, uri, version, two)
    text = apply_edits(text, [types.TextEdit(range=two[0].range, new_text="")])
    text = "// top\n" + text
    after_edits = await published(client, uri, version)

    client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    waiter = asyncio.ensure_future(published(client, uri, 100))
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="opencl", version=100, text=text)
        )
    )
    fresh = await waiter
    assert sorted(map(key, analysis_only(after_edits))) == sorted(map(key, analysis_only(fresh)))
    assert any(d.code == "L0201" for d in fresh)
    # the inserted `extra` line was removed again: the loop is back on its line + 1
    assert [d.range.start.line for d in fresh if d.code == "L0201"] == [55]


async def test_hover_on_x_is_contiguous(client: LanguageClient):
    uri, _ = await open_doc(client, "convolution.cl", CONVOLUTION)
    pos = position_of(CONVOLUTION, "int x = get_global_id", delta=4)
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=pos)
    )
    assert hover is not None
    assert "contiguous" in hover.contents.value
    assert hover.range.start.line == 38


async def test_inlay_hints(client: LanguageClient):
    uri, _ = await open_doc(client, "convolution.cl", CONVOLUTION)
    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=70, character=0)),
        )
    )
    labels = {(h.position.line, h.label) for h in hints}
    assert (38, ": contiguous") in labels, labels
    assert any(line == 54 and "divergent loop" in l for line, l in labels), labels
    assert sum(1 for line, l in labels if line == 55 and "gather" in l) >= 1, labels
    # a range excludes the hints outside it
    some = await client.text_document_inlay_hint_async(
        types.InlayHintParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=types.Position(line=38, character=0), end=types.Position(line=39, character=0)),
        )
    )
    assert some and all(h.position.line == 38 for h in some)


def decode_tokens(data, text, legend):
    """(line, col) -> (word, type, modifiers) of LSP's relative encoding."""
    assert len(data) % 5 == 0
    decoded, line, col = {}, 0, 0
    for i in range(0, len(data), 5):
        dl, dc, length, ty, mods = data[i : i + 5]
        line += dl
        col = dc if dl else col + dc
        word = text.split("\n")[line][col : col + length]
        decoded[(line, col)] = (word, legend.token_types[ty], mods)
    return decoded


async def test_semantic_tokens_uniform_varying(client: LanguageClient):
    uri, _ = await open_doc(client, "convolution.cl", CONVOLUTION)
    legend = client.init_result.capabilities.semantic_tokens_provider.legend
    tokens = await client.text_document_semantic_tokens_full_async(
        types.SemanticTokensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert tokens.data
    decoded = decode_tokens(tokens.data, CONVOLUTION, legend)
    uniform = 1 << legend.token_modifiers.index("uniform")
    varying = 1 << legend.token_modifiers.index("varying")
    x = position_of(CONVOLUTION, "int x = get_global_id", delta=4)
    vstep = position_of(CONVOLUTION, "int vstep", delta=4)
    assert decoded[(x.line, x.character)][0] == "x"
    assert decoded[(x.line, x.character)][2] & varying
    assert decoded[(vstep.line, vstep.character)][2] & uniform
    assert not decoded[(vstep.line, vstep.character)][2] & varying


async def test_semantic_tokens_of_a_range_are_the_full_tokens_there(client: LanguageClient):
    # Editors ask for the visible lines of a large file first.
    assert client.init_result.capabilities.semantic_tokens_provider.range
    uri, _ = await open_doc(client, "convolution.cl", CONVOLUTION)
    legend = client.init_result.capabilities.semantic_tokens_provider.legend
    doc = types.TextDocumentIdentifier(uri=uri)
    full = await client.text_document_semantic_tokens_full_async(types.SemanticTokensParams(text_document=doc))
    whole = decode_tokens(full.data, CONVOLUTION, legend)
    x = position_of(CONVOLUTION, "int x = get_global_id", delta=4)
    first, last = x.line - 3, x.line + 12
    part = await client.text_document_semantic_tokens_range_async(
        types.SemanticTokensRangeParams(
            text_document=doc,
            range=types.Range(start=types.Position(line=first, character=0), end=types.Position(line=last, character=0)),
        )
    )
    got = decode_tokens(part.data, CONVOLUTION, legend)
    assert got and got == {k: v for k, v in whole.items() if first <= k[0] < last}


async def test_guard_with_any(client: LanguageClient):
    # The action adds a uniform guard that skips the masked body when no lane
    # takes it, with the results unchanged; the guarded `if` stays divergent
    # but has its guard now: no L0300 and no second guard for it.
    uri, diags = await open_doc(client, "scale.cl", BRANCHY)
    branch = [d for d in diags if d.code == "L0300"]
    assert len(branch) == 1, diags
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=branch[0].range,
            context=types.CodeActionContext(diagnostics=branch),
        )
    )
    guard = [a for a in actions if a.title.startswith("Guard with any()")]
    assert len(guard) == 1, [a.title for a in actions]
    assert guard[0].kind == types.CodeActionKind.RefactorRewrite
    new_text = apply_edits(BRANCHY, guard[0].edit.changes[uri])
    assert "if (sub_group_any(a[i] > 0.0f)) {" in new_text
    await change(client, uri, 2, [whole(new_text)])
    after = await published(client, uri, 2)
    assert not [d for d in after if d.severity == types.DiagnosticSeverity.Error], after
    assert not [d for d in after if d.code == "L0300"], after
    inner = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(start=types.Position(line=4, character=0), end=types.Position(line=5, character=0)),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    assert not [a for a in inner if a.title.startswith("Guard with any()")], [a.title for a in inner]
    explained = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="lanes.explain", arguments=[uri])
    )
    guard_line = [l for l in explained["text"].split("\n") if "sub_group_any" in l]
    assert len(guard_line) == 1 and "uniform branch" in guard_line[0], explained["text"]


async def test_suppress_action(client: LanguageClient):
    uri, diags = await open_doc(client, "convolution.cl", CONVOLUTION)
    loop = [d for d in diags if d.code == "L0201"][0]
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=loop.range,
            context=types.CodeActionContext(diagnostics=[loop]),
        )
    )
    suppress = [a for a in actions if "Suppress" in a.title and "L0201" in a.title]
    assert suppress, [a.title for a in actions]
    new_text = apply_edits(CONVOLUTION, suppress[0].edit.changes[uri])
    assert "#pragma lanes ignore(L0201)" in new_text
    await change(client, uri, 2, [whole(new_text)])
    after = await published(client, uri, 2)
    assert not [d for d in after if d.code == "L0201"]
    assert [d for d in after if d.code == "L0202"], "other codes stay"


async def test_code_lens(client: LanguageClient):
    uri, _ = await open_doc(client, "convolution.cl", CONVOLUTION)
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert len(lenses) == 1
    lens = lenses[0]
    assert lens.range.start.line == 31
    assert lens.command.title.startswith("SIMD x16 ")
    assert "divergent loop" in lens.command.title and lens.command.title.endswith("Build")
    assert lens.command.command == "lanes.build"
    assert list(lens.command.arguments) == [uri, "convolution"]


async def test_configuration_change_changes_lens_width(client: LanguageClient):
    uri, _ = await open_doc(client, "convolution.cl", CONVOLUTION)

    async def title():
        lenses = await client.text_document_code_lens_async(
            types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )
        return lenses[0].command.title

    assert (await title()).startswith("SIMD x16 ")
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"lanes": {"target": "sse4-i32x4"}})
    )
    assert (await title()).startswith("SIMD x4 ")
    # the bare object is accepted too
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"target": "avx2-i32x8"})
    )
    assert (await title()).startswith("SIMD x8 ")


async def test_lanes_toml_sets_the_target(client: LanguageClient):
    (client.tmp / "lanes.toml").write_text('target = "neon-i32x4"\n[diagnostics]\nL0202 = "off"\n')
    # The client's initializationOptions (avx512skx-x16) win over lanes.toml;
    # clearing them leaves the file's settings.
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={}))
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=(client.tmp / "lanes.toml").as_uri(), type=types.FileChangeType.Created)]
        )
    )
    uri, diags = await open_doc(client, "convolution.cl", CONVOLUTION)
    assert not [d for d in diags if d.code == "L0202"], "L0202 = off in lanes.toml"
    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert lenses[0].command.title.startswith("SIMD x4 ")


async def test_symbols(client: LanguageClient):
    uri, _ = await open_doc(client, "convolution.cl", CONVOLUTION)
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    names = [s.name for s in symbols]
    assert names == ["convolution"]
    assert symbols[0].selection_range.start.line == 31


async def test_definition(client: LanguageClient):
    uri, _ = await open_doc(client, "convolution.cl", CONVOLUTION)
    use = position_of(CONVOLUTION, "output[x]", delta=7)
    loc = await client.text_document_definition_async(
        types.DefinitionParams(text_document=types.TextDocumentIdentifier(uri=uri), position=use)
    )
    loc = loc[0] if isinstance(loc, list) else loc
    assert loc.uri == uri
    assert (loc.range.start.line, loc.range.start.character) == (38, 8)


async def test_references_and_highlight(client: LanguageClient):
    uri, _ = await open_doc(client, "convolution.cl", CONVOLUTION)
    decl = position_of(CONVOLUTION, "int vstep", delta=4)
    refs = await client.text_document_references_async(
        types.ReferenceParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=decl,
            context=types.ReferenceContext(include_declaration=True),
        )
    )
    lines = [r.range.start.line for r in refs]
    code = [l.split("//")[0] for l in CONVOLUTION.split("\n")]
    expected = [i for i, l in enumerate(code) for _ in range(l.count("vstep"))]
    assert sorted(lines) == sorted(expected)
    highlights = await client.text_document_document_highlight_async(
        types.DocumentHighlightParams(text_document=types.TextDocumentIdentifier(uri=uri), position=decl)
    )
    assert len(highlights) == len(refs)
    kinds = {h.range.start.line: h.kind for h in highlights}
    assert kinds[decl.line] == types.DocumentHighlightKind.Write
    assert types.DocumentHighlightKind.Read in kinds.values()


async def test_rename(client: LanguageClient):
    uri, _ = await open_doc(client, "convolution.cl", CONVOLUTION)
    decl = position_of(CONVOLUTION, "int vstep", delta=4)
    prep = await client.text_document_prepare_rename_async(
        types.PrepareRenameParams(text_document=types.TextDocumentIdentifier(uri=uri), position=decl)
    )
    assert prep.placeholder == "vstep"
    edit = await client.text_document_rename_async(
        types.RenameParams(text_document=types.TextDocumentIdentifier(uri=uri), position=decl, new_name="reach")
    )
    renamed = apply_edits(CONVOLUTION, edit.changes[uri])
    code = [l.split("//")[0] for l in renamed.split("\n")]
    assert not any("vstep" in l for l in code)
    assert "int reach = (stencilWidth - 1) / 2;" in renamed
    # a clash is refused with a message
    with pytest.raises(Exception, match="already"):
        await client.text_document_rename_async(
            types.RenameParams(text_document=types.TextDocumentIdentifier(uri=uri), position=decl, new_name="left")
        )


async def test_build_writes_linkable_object_and_header(client: LanguageClient):
    uri, _ = await open_doc(client, "convolution.cl", CONVOLUTION)
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="lanes.build", arguments=[uri])
    )
    obj, header = pathlib.Path(result["object"]), pathlib.Path(result["header"])
    assert obj == client.tmp / "convolution.o" and obj.stat().st_size > 0
    assert header == client.tmp / "convolution.h" and "convolution" in header.read_text()
    # work-done progress: begin and end
    # (the end notification may arrive just after the answer)
    for _ in range(100):
        reports = [r for rs in client.progress_reports.values() for r in rs]
        if any(isinstance(r, types.WorkDoneProgressEnd) for r in reports):
            break
        await asyncio.sleep(0.02)
    assert any(isinstance(r, types.WorkDoneProgressBegin) for r in reports)
    assert any(isinstance(r, types.WorkDoneProgressEnd) for r in reports)
    gcc = shutil.which("gcc") or shutil.which("cc")
    if gcc:
        main = client.tmp / "main.c"
        main.write_text('#include "convolution.h"\nint main(void) { return 0; }\n')
        subprocess.run(
            [gcc, "-o", str(client.tmp / "main"), str(main), str(obj), "-lm"],
            check=True,
            cwd=client.tmp,
        )


@pytest.mark.parametrize(
    "command,language,needle",
    [
        ("lanes.showVectorIR", "llvm", "convolution"),
        ("lanes.showAsm", "asm", "convolution"),
        ("lanes.explain", "plaintext", "kernel convolution"),
    ],
)
async def test_text_commands(client: LanguageClient, command, language, needle):
    uri, _ = await open_doc(client, "convolution.cl", CONVOLUTION)
    result = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=command, arguments=[uri, "convolution"])
    )
    assert result["language"] == language
    assert needle in result["text"] and len(result["text"].split("\n")) > 5


async def test_stale_request_is_cancelled_or_fresh(client: LanguageClient):
    # 100 kernels, opened cold: the semantic tokens request analyses every
    # kernel (100+ ms), and the edit sent right behind it arrives while it
    # runs. The request must not answer with tokens of the old text.
    body = CONVOLUTION.split("__kernel void convolution")[1]
    text = "".join(f"__kernel void conv{i}{body}\n" for i in range(100))
    uri = write(client, "big.cl", text)
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="opencl", version=1, text=text)
        )
    )
    request = asyncio.ensure_future(
        client.text_document_semantic_tokens_full_async(
            types.SemanticTokensParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )
    )
    await asyncio.sleep(0)  # the request goes out first
    new_text = text.replace("get_global_id", "get_group_id")
    await change(client, uri, 2, [whole(new_text)])
    fresh = await client.text_document_semantic_tokens_full_async(
        types.SemanticTokensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    try:
        answer = await request
    except Exception as e:  # noqa: BLE001 - the error's code is checked
        assert getattr(e, "code", None) == JsonRpcContentModified.CODE, repr(e)
    else:
        assert answer.data == fresh.data, "a stale answer for the old text"
    assert fresh.data, "the fresh request is answered"


async def test_unknown_document_and_command_are_errors(client: LanguageClient):
    with pytest.raises(Exception):
        await client.text_document_hover_async(
            types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri="file:///nowhere.cl"),
                position=types.Position(line=0, character=0),
            )
        )
    uri, _ = await open_doc(client, "convolution.cl", CONVOLUTION)
    with pytest.raises(Exception):
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="lanes.nothing", arguments=[uri])
        )
    # the server still answers
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position_of(CONVOLUTION, "int x = get_global_id", delta=4),
        )
    )
    assert hover is not None


async def test_panic_is_an_internal_error(client: LanguageClient):
    uri, _ = await open_doc(client, "convolution.cl", CONVOLUTION)
    with pytest.raises(Exception) as info:
        await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="lanes.test.panic", arguments=[uri])
        )
    assert getattr(info.value, "code", None) == -32603, repr(info.value)
    # the server keeps serving, and the document keeps working
    await change(client, uri, 2, [whole(CONVOLUTION + "\n")])
    assert any(d.code == "L0201" for d in await published(client, uri, 2))
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position_of(CONVOLUTION, "int x = get_global_id", delta=4),
        )
    )
    assert "contiguous" in hover.contents.value


# ---------------------------------------------------------------------------
# inferred preconditions (computed in the background, after the diagnostics)

# The solver cannot decide `(x * n + m) % 7` for a group: inference runs into
# its budget on the branch.
HARD = """__kernel void hard(__global int *a, int n, int m)
{
    int x = get_global_id(0);
    if ((x * n + m) % 7 == (x / 3) % 5)
        a[x] = 1;
}
"""


async def test_precondition_arrives_after_the_diagnostics(client: LanguageClient):
    uri, diags = await open_doc(client, "convolution.cl", CONVOLUTION)
    assert [d for d in diags if d.code == "L0201"], diags
    assert not [d for d in diags if d.code in ("L0301", "L0302")], "Z3 must not delay the diagnostics"
    after = await logged(client, uri, 1, having("L0301"))
    fast = [d for d in after if d.code == "L0301"]
    loop = [d for d in fast if d.range.start.line == 54]
    assert len(loop) == 1, fast
    assert loop[0].severity == types.DiagnosticSeverity.Information
    assert "`vstep <= x && x < width - vstep`" in loop[0].message
    # the analysis diagnostics are all still there
    assert sorted(map(key, analysis_only(after))) == sorted(map(key, diags))

    # The hover on the loop's header explains the fast path.
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position_of(CONVOLUTION, "for (int i = left"),
        )
    )
    text = hover.contents.value
    assert "**Fast path**" in text and "`vstep <= x && x < width - vstep`" in text, text
    assert "x0 + 15 < width - vstep" in text, text
    assert "proven with Z3" in text, text


async def test_add_fast_path_makes_the_copy_uniform(client: LanguageClient):
    uri, _ = await open_doc(client, "convolution.cl", CONVOLUTION)
    after = await logged(client, uri, 1, having("L0301"))
    fast = [d for d in after if d.code == "L0301" and d.range.start.line == 54]
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=fast[0].range,
            context=types.CodeActionContext(diagnostics=fast),
        )
    )
    add = [a for a in actions if a.title.startswith("Add fast path")]
    assert len(add) == 1, [a.title for a in actions]
    assert add[0].title == "Add fast path: if (sub_group_all(vstep <= x && x < width - vstep))"
    assert add[0].kind == types.CodeActionKind.RefactorRewrite
    new_text = apply_edits(CONVOLUTION, add[0].edit.changes[uri])
    lines = new_text.split("\n")
    assert lines[54] == "    if (sub_group_all(vstep <= x && x < width - vstep)) {", lines[52:62]
    assert lines[55].startswith("        for (int i = left; i <= right; ++i)"), lines[52:62]
    await change(client, uri, 2, [whole(new_text)])
    diags = await published(client, uri, 2)
    assert not [d for d in diags if d.severity == types.DiagnosticSeverity.Error], diags
    # L0201 and the two gathers remain only in the original loop (the else side)
    else_line = lines.index("    } else {")
    assert [d.range.start.line for d in diags if d.code == "L0201"] == [else_line + 1], diags
    assert all(d.range.start.line > else_line for d in diags if d.code == "L0202"), diags
    explained = await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="lanes.explain", arguments=[uri])
    )
    loops = [l for l in explained["text"].split("\n") if "for (int i = left" in l]
    assert len(loops) == 2, explained["text"]
    assert "uniform loop" in loops[0] and "divergent loop" in loops[1], loops


async def test_solver_timeout_gives_diagnostics_first_and_a_hint_later(client: LanguageClient):
    uri, diags = await open_doc(client, "hard.cl", HARD)
    assert [d.code for d in diags] == ["L0300"], diags
    # While the solver works, the server answers requests.
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=position_of(HARD, "int x", delta=4),
        )
    )
    assert "contiguous" in hover.contents.value
    assert not any(having("L0301", "L0302")(p.diagnostics) for p in client.published_log), (
        "the hover was answered while the inference ran"
    )
    after = await logged(client, uri, 1, having("L0301", "L0302"))
    hint = [d for d in after if d.code == "L0302"]
    assert len(hint) == 1, after
    assert hint[0].severity == types.DiagnosticSeverity.Hint
    assert hint[0].range.start.line == 3
    assert "no precondition for this branch found within" in hint[0].message


async def test_launch_hint_gives_the_coverage(client: LanguageClient):
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(
            settings={"lanes": {
                "target": "avx512skx-x16",
                "launch": {"globalSize": [2048], "args": {"width": 2048, "stencilWidth": 5}},
            }}
        )
    )
    uri, _ = await open_doc(client, "convolution.cl", CONVOLUTION)
    after = await logged(client, uri, 1, having("L0301"))
    loop = [d for d in after if d.code == "L0301" and d.range.start.line == 54][0]
    # vstep = (5 - 1) / 2 = 2; groups of 16 in 2048 work-items: x0 = 0 and
    # x0 = 2032 miss `2 <= x0 && x0 + 15 < 2048 - 2`: 126 of 128.
    expected = sum(1 for x0 in range(0, 2048, 16) if 2 <= x0 and x0 + 15 < 2048 - 2) / 128 * 100
    assert f"({expected:.1f}% of the groups of the launch)" in loop.message, loop.message


# ---------------------------------------------------------------------------
# property: random edit sequences


def line_col(text: str, offset: int):
    line = text.count("\n", 0, offset)
    return line, offset - (text.rfind("\n", 0, offset) + 1)


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_random_edits_keep_the_server_alive_and_end_as_a_fresh_open(
    client: LanguageClient, seed: int
):
    """Random insertions, deletions and replacements (many of which break the
    syntax, later ones may repair it) sent as incremental changes: the server
    answers hovers throughout, and its final diagnostics equal those of the
    final text opened fresh in the same server."""
    import random

    rng = random.Random(seed)
    uri, _ = await open_doc(client, f"random{seed}.cl", CONVOLUTION)
    text = CONVOLUTION
    pieces = ["", "x", ";", "{", "}", "(", ")", "int y = 2;\n", "for (", "/*", "*/",
              "\n", "sub_group_any(", "return;", "0.5f", "#define Z 3\n", "]"]
    version = 1
    for _ in range(40):
        a = rng.randrange(len(text) + 1)
        b = min(len(text), a + rng.choice([0, 0, 1, 2, 5, 20]))
        new = rng.choice(pieces)
        start, end = line_col(text, a), line_col(text, b)
        version += 1
        await change(client, uri, version, [partial(text, start, end, new)])
        text = text[:a] + new + text[b:]
        if rng.random() < 0.3:
            # A request in the middle of the edits: an answer or
            # ContentModified, never a dead server.
            line, col = line_col(text, rng.randrange(len(text) + 1))
            try:
                await client.text_document_hover_async(
                    types.HoverParams(
                        text_document=types.TextDocumentIdentifier(uri=uri),
                        position=types.Position(line=line, character=col),
                    )
                )
            except JsonRpcContentModified:
                pass
    version += 1
    await change(client, uri, version, [partial(text, (0, 0), (0, 0), "")])
    after_edits = await published(client, uri, version)

    fresh_uri = write(client, f"fresh{seed}.cl", text)
    waiter = asyncio.ensure_future(published(client, fresh_uri, 1))
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=fresh_uri, language_id="opencl", version=1, text=text)
        )
    )
    fresh = await waiter

    def local(ds):
        # Related locations name the document itself; compare without the URI.
        return sorted(
            (k[:7] + (tuple((l, c, m) for (_, l, c, m) in k[7]),)) for k in map(key, ds)
        )

    assert local(analysis_only(after_edits)) == local(analysis_only(fresh))


# ---------------------------------------------------------------------------
# headers that are not UTF-8: a document that `#include`s a header with
# Latin-1 bytes (as the SDK samples' copyright comments are) gets its
# diagnostics, hovers and definitions at the right positions.

# Line 1: a Latin-1 copyright sign; line 2: two Latin-1 letters in a comment
# before the function name and the undeclared identifier.
HEADER = (
    b"/* Copyright \xa9 2010 Advanced Micro Devices, Inc. */\n"
    b"/* d\xe9j\xe0 */ inline float scale(float x) { return x * FACTOR; }\n"
)
HEADER_TEXT = HEADER.decode("latin-1")

KERNEL = """#include "scale.h"

__kernel void scale_all(__global float *data)
{
    int i = get_global_id(0);
    data[i] = scale(data[i]);
}
"""


async def open_kernel(client, header: bytes):
    (client.tmp / "scale.h").write_bytes(header)
    return await open_doc(client, "k.cl", KERNEL)


def header_position(needle: str) -> tuple[int, int]:
    """Line and UTF-16 column of `needle` in the decoded header."""
    at = HEADER_TEXT.index(needle)
    line = HEADER_TEXT.count("\n", 0, at)
    return line, at - (HEADER_TEXT.rfind("\n", 0, at) + 1)


async def test_header_errors_point_after_latin1_characters(client: LanguageClient):
    uri, diags = await open_kernel(client, HEADER)
    header_uri = (client.tmp / "scale.h").as_uri()
    by_code = {d.code: d for d in diags}
    # Shown at the `#include`, with the header's own place as related information.
    hint = by_code["L0102"]
    assert hint.severity == types.DiagnosticSeverity.Hint
    assert hint.range.start.line == 0
    where = hint.related_information[0].location
    assert where.uri == header_uri
    assert (where.range.start.line, where.range.start.character) == header_position("\u00a9")
    assert where.range.end.character == where.range.start.character + 1
    err = by_code["L0003"]
    assert "FACTOR" in err.message
    where = err.related_information[0].location
    assert where.uri == header_uri
    assert (where.range.start.line, where.range.start.character) == header_position("FACTOR")
    assert where.range.end.character - where.range.start.character == len("FACTOR")
    assert sum(1 for d in diags if d.code == "L0102") == 1


async def test_hover_and_definition_across_a_latin1_header(client: LanguageClient):
    header = HEADER.replace(b"FACTOR", b"2.0f")
    uri, diags = await open_kernel(client, header)
    assert not [d for d in diags if d.severity == types.DiagnosticSeverity.Error], diags
    doc = types.TextDocumentIdentifier(uri=uri)
    line = KERNEL.split("\n").index("    int i = get_global_id(0);")
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=doc, position=types.Position(line=line, character=8))
    )
    assert hover is not None and "contiguous" in hover.contents.value
    assert (hover.range.start.line, hover.range.start.character) == (line, 8)
    call = KERNEL.split("\n").index("    data[i] = scale(data[i]);")
    loc = await client.text_document_definition_async(
        types.DefinitionParams(text_document=doc, position=types.Position(line=call, character=16))
    )
    loc = loc[0] if isinstance(loc, list) else loc
    assert loc.uri == (client.tmp / "scale.h").as_uri()
    assert (loc.range.start.line, loc.range.start.character) == header_position("scale(")


# ---------------------------------------------------------------------------
# one settings model and one pipeline with the command line (lanes-pipeline)

# The project of tests/cli/test_pipeline.py: lanes.toml with target,
# defines, include path and severities; pragmas in the kernel file.
PROJECT = ROOT / "tests" / "projects" / "blur"

SEVERITY = {
    types.DiagnosticSeverity.Error: "error",
    types.DiagnosticSeverity.Warning: "warning",
    types.DiagnosticSeverity.Information: "info",
    types.DiagnosticSeverity.Hint: "hint",
}


async def test_lanes_toml_severities_and_pragmas_as_lanes_check_shows_them(client: LanguageClient):
    shutil.copytree(PROJECT, client.tmp, dirs_exist_ok=True)
    text = (PROJECT / "src" / "blur.cl").read_text()
    # Without the client's own target, lanes.toml's applies.
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={}))
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=(client.tmp / "lanes.toml").as_uri(), type=types.FileChangeType.Created)]
        )
    )
    path = client.tmp / "src" / "blur.cl"
    check = subprocess.run(
        [LANES, "check", "--format", "json", str(path)], cwd=client.tmp, capture_output=True, text=True, timeout=300
    )
    assert check.returncode == 0, check.stderr
    expected = sorted(
        (d["code"], d["severity"], d["line"], d["col"], d["message"])
        for d in json.loads(check.stdout)["diagnostics"]
    )
    codes = [e[0] for e in expected]
    assert "L0202" not in codes and codes.count("L0203") == 1, expected
    assert ("L0201", "info") in [(c, s) for c, s, *_ in expected], expected
    assert ("L0300", "hint") in [(c, s) for c, s, *_ in expected], expected
    fast = codes.count("L0301")
    assert fast == 2, expected

    uri, _ = await open_doc(client, "src/blur.cl", text)
    shown = await logged(client, uri, 1, lambda ds: sum(d.code == "L0301" for d in ds) == fast)
    got = sorted(
        (d.code, SEVERITY[d.severity], d.range.start.line + 1, d.range.start.character + 1, d.message)
        for d in shown
    )
    # The editor's message goes on with the notes.
    assert [g[:4] for g in got] == [e[:4] for e in expected]
    for g, e in zip(got, expected):
        assert g[4].startswith(e[4]), (g, e)



async def test_lanes_toml_errors_are_logged_as_the_command_line_prints_them(client: LanguageClient):
    (client.tmp / "lanes.toml").write_text('target = "sse4-i32x4"\n[preconditions]\nfileBudgett = 5\n')
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=(client.tmp / "lanes.toml").as_uri(), type=types.FileChangeType.Changed)]
        )
    )
    (client.tmp / "k.cl").write_text(BRANCHY)
    cli = subprocess.run([LANES, "check", str(client.tmp / "k.cl")], cwd=client.tmp, capture_output=True, text=True)
    assert cli.returncode == 2
    (printed,) = [l for l in cli.stderr.splitlines() if "fileBudgett" in l]
    assert "lanes.toml:3:1: unknown setting `preconditions.fileBudgett`" in printed

    async def wait():
        while True:
            for m in client.log_messages:
                if "fileBudgett" in m.message:
                    return m
            await asyncio.sleep(0.05)

    logged_message = await asyncio.wait_for(wait(), 30)
    assert logged_message.type == types.MessageType.Warning
    assert logged_message.message == "lanes: " + printed.removeprefix("error: ")
    # The same key from the editor: the same message, without a position.
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"lanes": {"preconditions": {"fileBudgett": 5}}})
    )

    async def wait_editor():
        while True:
            for m in client.log_messages:
                if m.message.startswith("lanes: editor settings: unknown setting `preconditions.fileBudgett`"):
                    return m
            await asyncio.sleep(0.05)

    await asyncio.wait_for(wait_editor(), 30)


# Work-group features: __local memory, barriers, atomics

WORK_GROUP = """\
#define L 64

__kernel void block_sum(__global const float *in, __global float *sums,
                        __global int *hist, __global int *count)
{
    __local float part[L];
    uint lid = get_local_id(0);
    uint gid = get_global_id(0);
    float v = in[gid];
    part[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = L / 2; s > 0; s >>= 1) {
        if (lid < s)
            part[lid] += part[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    atomic_inc(&hist[(int)(v * 16.0f) & 15]);
    if (lid == 0) {
        sums[get_group_id(0)] = part[0];
        atomic_inc(count);
    }
}

__kernel void half_barrier(__global float *data)
{
    __local float tile[L];
    uint lid = get_local_id(0);
    tile[lid] = data[get_global_id(0)];
    if (lid < 32)
        barrier(CLK_LOCAL_MEM_FENCE);
    data[get_global_id(0)] = tile[lid];
}
"""


async def test_work_group_features_in_the_editor(client: LanguageClient):
    uri, diags = await open_doc(client, "block_sum.cl", WORK_GROUP)
    doc = types.TextDocumentIdentifier(uri=uri)
    lines = WORK_GROUP.split("\n")
    by_line = {}
    for d in diags:
        by_line.setdefault(d.range.start.line, set()).add(d.code)
    # The barrier under `lid < 32` is an error, with the reason in the chain.
    half = lines.index("        barrier(CLK_LOCAL_MEM_FENCE);", lines.index("    if (lid < 32)"))
    err = [d for d in diags if d.code == "L0401"]
    assert len(err) == 1 and err[0].range.start.line == half, diags
    assert err[0].severity == types.DiagnosticSeverity.Error
    assert any("lid" in r.message for r in err[0].related_information or []), err[0]
    # The histogram atomic serializes (L0209); the counter under lid == 0
    # runs on one lane: no L0208 there.
    hist = lines.index("    atomic_inc(&hist[(int)(v * 16.0f) & 15]);")
    assert "L0209" in by_line.get(hist, set()), diags
    assert not [d for d in diags if d.code == "L0208"], diags

    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=doc, position=position_of(WORK_GROUP, "barrier(CLK"))
    )
    assert hover is not None and "work-group barrier" in hover.contents.value, hover
    assert "`__local` memory" in hover.contents.value
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=doc, position=position_of(WORK_GROUP, "part[L]"))
    )
    assert hover is not None and "one object of 256 bytes per work-group" in hover.contents.value

    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(
            text_document=doc,
            range=types.Range(start=types.Position(line=0, character=0),
                              end=types.Position(line=len(lines), character=0)),
        )
    )
    labels = {(h.position.line, h.label) for h in hints}
    count = lines.index("        atomic_inc(count);")
    assert (hist, "atomic per lane") in labels, labels
    assert (count, "masked atomic, one lane") in labels, sorted(l for l in labels if l[0] >= 16)

    lenses = await client.text_document_code_lens_async(types.CodeLensParams(text_document=doc))
    titles = sorted(lens.command.title for lens in lenses)
    assert len(titles) == 2, titles
    block = next(t for t in titles if "atomics" in t)
    assert "2 barriers" in block and "(" not in block.split("barriers")[1].split("·")[0], block
    half_lens = next(t for t in titles if t is not block)
    assert "1 barrier (1 not reached by all work-items)" in half_lens, half_lens


@pytest.mark.parametrize("shutdown", [True, False], ids=["shutdown-exit", "exit-alone"])
async def test_server_starts_with_the_arguments_vscode_passes(tmp_path, shutdown):
    """vscode-languageclient's stdio transport runs `lanes lsp --stdio`
    (and may add `--clientProcessId=N`). The exit status is 0 after
    `shutdown` then `exit`, and 1 for `exit` alone, as the protocol says."""
    proc = subprocess.Popen([LANES, "lsp", "--stdio", f"--clientProcessId={os.getpid()}"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def send(msg):
        body = json.dumps(msg).encode()
        proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        proc.stdin.flush()

    def receive():
        length = None
        while True:
            line = proc.stdout.readline()
            assert line, proc.stderr.read().decode()
            if line in (b"\r\n", b"\n"):
                break
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        return json.loads(proc.stdout.read(length))

    try:
        send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"processId": os.getpid(), "rootUri": tmp_path.as_uri(), "capabilities": {}}})
        reply = receive()
        while "id" not in reply:
            reply = receive()
        assert reply["id"] == 1 and "capabilities" in reply["result"], reply
        send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        if shutdown:
            send({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
            reply = receive()
            while reply.get("id") != 2:
                reply = receive()
        send({"jsonrpc": "2.0", "method": "exit"})
        assert proc.wait(timeout=30) == (0 if shutdown else 1)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            pipe.close()


async def test_hundreds_of_edits_keep_the_server_answering(client: LanguageClient):
    # Typed and deleted characters in 20 kernels, in bursts sent back to back
    # and pauses that wait for the version's diagnostics, with hovers between:
    # what frees an edit's replaced results after its publish must never wait
    # on a job queued behind it (a deadlock once showed after ~150 edits).
    body = CONVOLUTION.split("__kernel void convolution")[1]
    text = "".join(f"__kernel void conv{i}{body}\n" for i in range(20))
    uri, _ = await open_doc(client, "many.cl", text)
    typed = [False] * 20
    version = 1
    for i in range(240):
        k = (i * 7) % 20
        at = position_of(text, "int x = get_global_id", nth=k)
        if typed[k]:
            edit = partial(text, (at.line, 0), (at.line, 1), "")
            text = "\n".join(l[1:] if n == at.line else l for n, l in enumerate(text.split("\n")))
        else:
            edit = partial(text, (at.line, 0), (at.line, 0), " ")
            text = "\n".join(" " + l if n == at.line else l for n, l in enumerate(text.split("\n")))
        typed[k] = not typed[k]
        version += 1
        pause = i % 12 == 11
        waiter = asyncio.ensure_future(published(client, uri, version)) if pause else None
        await change(client, uri, version, [edit])
        if pause:
            await waiter
            hover = await client.text_document_hover_async(
                types.HoverParams(
                    text_document=types.TextDocumentIdentifier(uri=uri),
                    position=position_of(text, "int x = get_global_id", nth=k, delta=4),
                )
            )
            assert hover is not None and "contiguous" in hover.contents.value
    version += 1
    waiter = asyncio.ensure_future(published(client, uri, version))
    await change(client, uri, version, [partial(text, (0, 0), (0, 0), "\n")])
    text = "\n" + text
    final = await waiter
    _, fresh = await open_doc(client, "fresh.cl", text)
    key = lambda d: (d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character, str(d.code), d.message)
    assert sorted(map(key, final)) == sorted(map(key, fresh))
