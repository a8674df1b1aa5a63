"""Code actions honour `context.only`: VS Code asks for `quickfix` only from
the Problems panel and drops (with a warning) any action of another kind."""

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from test_lsp import BRANCHY, client, open_doc  # noqa: F401

pytestmark = pytest.mark.asyncio(loop_scope="function")


async def actions(client, uri, rng, only):
    return await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=rng,
            context=types.CodeActionContext(diagnostics=[], only=only),
        )
    )


async def test_code_actions_of_the_kinds_asked_for(client: LanguageClient):
    uri, diags = await open_doc(client, "scale.cl", BRANCHY)
    rng = [d for d in diags if d.code == "L0300"][0].range
    every = await actions(client, uri, rng, None)
    kinds = {a.kind for a in every}
    assert kinds == {types.CodeActionKind.QuickFix, types.CodeActionKind.RefactorRewrite}, kinds
    quick = await actions(client, uri, rng, [types.CodeActionKind.QuickFix])
    assert quick and all(a.kind == types.CodeActionKind.QuickFix for a in quick)
    # A parent kind matches its sub-kinds.
    refactor = await actions(client, uri, rng, [types.CodeActionKind.Refactor])
    assert refactor and all(a.kind == types.CodeActionKind.RefactorRewrite for a in refactor)
    assert len(quick) + len(refactor) == len(every)
    assert not await actions(client, uri, rng, [types.CodeActionKind.Source])
