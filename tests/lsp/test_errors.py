"""Facts survive errors, through a real `lanes lsp`: an error typed into one
kernel leaves the other kernels' diagnostics, hints and hovers, and the
broken kernel shows its last analysed facts, marked as such."""

import asyncio

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from test_lsp import change, client, logged, open_doc, partial, position_of  # noqa: F401

pytestmark = pytest.mark.asyncio(loop_scope="function")

TWO_KERNELS = """// two kernels: typing in one must not blank the other
__kernel void scale(__global float *a, int n)
{
    int i = get_global_id(0);
    if (a[i] > 0.0f) {
        a[i] = a[i] * 2.0f;
    }
}

__kernel void rows(__global const float *m, __global float *out, int w)
{
    int r = get_global_id(0);
    float s = 0.0f;
    for (int c = 0; c < r; c++)
        s += m[r * w + c];
    out[r] = s;
}
"""


async def hints(client, uri, text):
    return await client.text_document_inlay_hint_async(
        types.InlayHintParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(
                start=types.Position(line=0, character=0),
                end=types.Position(line=text.count("\n") + 1, character=0),
            ),
        )
    )


async def hover(client, uri, pos):
    return await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=pos)
    )


async def test_an_error_in_one_kernel_keeps_the_other_kernels_facts(client: LanguageClient):
    uri, diags = await open_doc(client, "two.cl", TWO_KERNELS)
    assert any(d.code == "L0201" for d in diags), diags
    before = await hints(client, uri, TWO_KERNELS)
    rows_line = TWO_KERNELS.split("\n").index("__kernel void rows(__global const float *m, __global float *out, int w)")
    rows_hints = sorted((h.position.line, h.position.character, h.label) for h in before if h.position.line > rows_line)
    assert rows_hints, before

    # Typing an unfinished statement into `scale` (one line inserted at line 4).
    await change(client, uri, 2, [partial(TWO_KERNELS, (4, 0), (4, 0), "    float t = a[i] +\n")])
    broken = TWO_KERNELS.split("\n")
    broken.insert(4, "    float t = a[i] +")
    broken = "\n".join(broken)
    diags = await logged(client, uri, 2, lambda ds: any(d.severity == types.DiagnosticSeverity.Error for d in ds))
    # The loop of the other kernel is still reported.
    assert any(d.code == "L0201" and d.range.start.line == 14 for d in diags), diags

    after = await hints(client, uri, broken)
    moved = sorted((h.position.line, h.position.character, h.label) for h in after if h.position.line > rows_line + 1)
    assert moved == [(l + 1, c, lab) for l, c, lab in rows_hints]
    h = await hover(client, uri, position_of(broken, "int r =", delta=4))
    assert h is not None and "contiguous" in h.contents.value and "has errors now" not in h.contents.value

    # `scale` itself shows its last facts, marked.
    h = await hover(client, uri, position_of(broken, "int i =", delta=4))
    assert h is not None and "contiguous" in h.contents.value, h
    assert "has errors now" in h.contents.value, h.contents.value
    lens = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    titles = [l.command.title for l in lens if l.command]
    assert any("as last analysed" in t for t in titles), titles
