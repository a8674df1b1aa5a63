"""Pull diagnostics (LSP 3.17 `textDocument/diagnostic`) through a real
`lanes lsp`: offered to clients that advertise the capability, with result
ids and `unchanged` answers, and a `workspace/diagnostic/refresh` when the
background inference adds findings; clients without the capability keep
getting pushed diagnostics."""

import asyncio
import os
import pathlib

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from test_lsp import CONVOLUTION, LANES, change, partial

pytestmark = pytest.mark.asyncio(loop_scope="function")


async def start(
    client: LanguageClient, tmp_path: pathlib.Path, pull: bool, preconditions: bool, opt_in: bool = True
):
    caps = client_capabilities("visual-studio-code")
    if pull:
        caps.text_document.diagnostic = types.DiagnosticClientCapabilities(
            dynamic_registration=False, related_document_support=False
        )
        caps.workspace.diagnostics = types.DiagnosticWorkspaceClientCapabilities(refresh_support=True)
    client.init_result = await client.initialize_session(
        types.InitializeParams(
            capabilities=caps,
            workspace_folders=[types.WorkspaceFolder(uri=tmp_path.as_uri(), name="ws")],
            initialization_options={
                "target": "avx512skx-x16",
                "preconditions": {"enabled": preconditions},
                "pullDiagnostics": opt_in,
            },
        )
    )
    for method in (
        types.WORKSPACE_SEMANTIC_TOKENS_REFRESH,
        types.WORKSPACE_INLAY_HINT_REFRESH,
        types.WORKSPACE_CODE_LENS_REFRESH,
    ):
        client.feature(method)(lambda *args: None)
    client.refreshes = 0

    @client.feature(types.WORKSPACE_DIAGNOSTIC_REFRESH)
    def refreshed(*args):
        client.refreshes += 1

    client.pushed = []
    features = client.protocol.fm.features
    default = features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]

    def record(params):
        client.pushed.append(params)
        return default(params)

    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = record


CONFIG = ClientServerConfig(server_command=[LANES, "lsp"])


@pytest_lsp.fixture(config=CONFIG)
async def pull_client(lsp_client: LanguageClient, tmp_path: pathlib.Path):
    await start(lsp_client, tmp_path, pull=True, preconditions=False)
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=CONFIG)
async def pull_client_inferring(lsp_client: LanguageClient, tmp_path: pathlib.Path):
    await start(lsp_client, tmp_path, pull=True, preconditions=True)
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=CONFIG)
async def pull_capable_client(lsp_client: LanguageClient, tmp_path: pathlib.Path):
    await start(lsp_client, tmp_path, pull=True, preconditions=False, opt_in=False)
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=CONFIG)
async def push_client(lsp_client: LanguageClient, tmp_path: pathlib.Path):
    await start(lsp_client, tmp_path, pull=False, preconditions=False)
    yield
    await lsp_client.shutdown_session()


def open_file(client, tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="opencl", version=1, text=text)
        )
    )
    return uri


async def pull(client, uri, previous=None):
    return await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(
            text_document=types.TextDocumentIdentifier(uri=uri), previous_result_id=previous
        )
    )


def codes(report):
    return sorted(d.code for d in report.items)


async def test_a_pull_client_gets_result_ids_and_unchanged_answers(pull_client: LanguageClient, tmp_path):
    lsp_client = pull_client
    provider = lsp_client.init_result.capabilities.diagnostic_provider
    assert provider is not None and provider.identifier == "lanes", provider
    assert provider.inter_file_dependencies and not provider.workspace_diagnostics

    uri = open_file(lsp_client, tmp_path, "convolution.cl", CONVOLUTION)
    first = await pull(lsp_client, uri)
    assert first.kind == "full" and first.result_id, first
    assert "L0201" in codes(first), codes(first)

    # Nothing changed: `unchanged` with the same id.
    again = await pull(lsp_client, uri, first.result_id)
    assert again.kind == "unchanged" and again.result_id == first.result_id, again
    # A client without the id gets everything.
    assert (await pull(lsp_client, uri)).kind == "full"

    # An edit that leaves every diagnostic as it was (a letter in a comment).
    comment = CONVOLUTION.index("//") + 3
    line = CONVOLUTION.count("\n", 0, comment)
    col = comment - (CONVOLUTION.rfind("\n", 0, comment) + 1)
    await change(lsp_client, uri, 2, [partial(CONVOLUTION, (line, col), (line, col + 1), "#")])
    same = await pull(lsp_client, uri, first.result_id)
    assert same.kind == "unchanged" and same.result_id == first.result_id, same

    # An edit that moves them (a line above everything): a new id and the
    # moved diagnostics.
    await change(lsp_client, uri, 3, [partial(CONVOLUTION, (0, 0), (0, 0), "\n")])
    moved = await pull(lsp_client, uri, first.result_id)
    assert moved.kind == "full" and moved.result_id != first.result_id, moved
    assert codes(moved) == codes(first)
    before = sorted(d.range.start.line for d in first.items)
    assert sorted(d.range.start.line for d in moved.items) == [l + 1 for l in before]

    # Nothing is pushed to a pull client.
    await asyncio.sleep(0.5)
    assert lsp_client.pushed == [], lsp_client.pushed


async def test_background_findings_ask_a_pull_client_to_pull_again(pull_client_inferring: LanguageClient, tmp_path):
    lsp_client = pull_client_inferring
    uri = open_file(lsp_client, tmp_path, "convolution.cl", CONVOLUTION)
    first = await pull(lsp_client, uri)
    assert "L0201" in codes(first) and "L0301" not in codes(first), codes(first)

    async def refreshed():
        while lsp_client.refreshes == 0:
            await asyncio.sleep(0.05)

    await asyncio.wait_for(refreshed(), 120)
    after = await pull(lsp_client, uri, first.result_id)
    assert after.kind == "full" and after.result_id != first.result_id, after
    loop = [d for d in after.items if d.code == "L0301" and d.range.start.line == 54]
    assert len(loop) == 1, after.items
    # Pulled again once settled: nothing new.
    assert (await pull(lsp_client, uri, after.result_id)).kind == "unchanged"
    assert lsp_client.pushed == []


async def gets_pushes(lsp_client: LanguageClient, tmp_path):
    """No pull offered: opening a file pushes its diagnostics."""
    assert lsp_client.init_result.capabilities.diagnostic_provider is None
    uri = open_file(lsp_client, tmp_path, "convolution.cl", CONVOLUTION)

    async def pushed():
        while not any(p.uri == uri and p.version == 1 for p in lsp_client.pushed):
            await asyncio.sleep(0.05)

    await asyncio.wait_for(pushed(), 60)
    p = [p for p in lsp_client.pushed if p.uri == uri][0]
    assert any(d.code == "L0201" for d in p.diagnostics)


async def test_a_client_without_the_capability_gets_pushed_diagnostics(push_client: LanguageClient, tmp_path):
    await gets_pushes(push_client, tmp_path)


async def test_a_pull_capable_client_gets_pushes_unless_it_opts_in(pull_capable_client: LanguageClient, tmp_path):
    # VS Code advertises pull; without `pullDiagnostics` it keeps pushes,
    # which are faster per code edit today (bench/RESULTS.md).
    await gets_pushes(pull_capable_client, tmp_path)
