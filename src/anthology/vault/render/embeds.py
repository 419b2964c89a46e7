"""``[[wikilinks]]`` and ``![[embeds]]`` as HTML, and the part of an entry an embed shows
(:func:`section_of` a heading, :func:`block_of` a block)."""

from __future__ import annotations

import re
from collections.abc import Callable
from html import escape

from ..excalidraw_md import drawing_block, is_drawing_note
from ..links import (
    is_attachment,
    mask_code,
    match_heading,
    split_markdown_target,
    split_wikilink,
)
from ..model import EntryRef
from .context import (
    MAX_EMBED_DEPTH,
    MAX_EMBEDS,
    RenderContext,
)
from .lazy import lazy
from .media_card import MEDIA_EXTENSIONS, media_card
from .urls import attachment_src, escapes_vault, image_html, other_file_src

# An embedded file that is neither a picture nor a note, by its extension (lower case):
# (ctx, the target as written, its alias ("300", "300x200", a title…) or None, the part
# after "#" ("page=3&height=400") or None) → HTML, block-level. One line here per kind of
# file drawn in place (a PDF's page, a player…); a kind not listed shows as a link.
AttachmentEmbed = Callable[[RenderContext, str, str | None, str | None], str]
ATTACHMENT_EMBEDS: dict[str, AttachmentEmbed] = {
    "base": lazy("bases", "base_embed_html"),  # a view of a .base
    "canvas": lazy("canvas_embed", "canvas_embed"),  # the board drawn small
    "excalidraw": lazy("drawings", "drawing_file_embed"),  # an Excalidraw drawing (JSON)
}
ATTACHMENT_EMBEDS.update(dict.fromkeys(MEDIA_EXTENSIONS, media_card))  # audio, video: a card


def markdown_embed_html(ctx: RenderContext, raw: str, alt: str) -> str | None:
    """``![alt](file.ext)`` of a kind :data:`ATTACHMENT_EMBEDS` draws, drawn as
    ``![[file.ext|alt]]`` is; None for anything else (a picture, a URL: the image rules)."""
    parts = split_markdown_target(raw.strip())
    if parts is None or not parts[0]:
        return None
    draw = ATTACHMENT_EMBEDS.get(parts[0].rsplit(".", 1)[-1].lower() if "." in parts[0] else "")
    if draw is None:
        return None
    if escapes_vault(ctx, parts[0]):
        ctx.problems.append(f"embed outside the vault refused: {parts[0]}")
        return ctx.notice(f"⊘ Refused: “{escape(parts[0])}” lies outside the vault", error=True)
    frag = raw.partition("#")[2].strip() or None
    return draw(ctx, parts[0], alt or None, frag)


ATTACHMENT_EMBEDS["pdf"] = lazy("pdf_embed", "pdf_embed_html")  # a page, drawn by the pane
# Kinds whose files are entries of the index too, embedded by their registry's renderer
# all the same (it says "not found" itself): ![[Board.canvas]] is the board, not its cards
DRAWN_AS_FILES = frozenset({"canvas"})


def wikilink_html(ctx: RenderContext, inner: str, embed: bool) -> tuple[str, bool]:
    """HTML for ``[[inner]]`` / ``![[inner]]``; the flag says it is block-level."""
    target, heading, block, alias = split_wikilink(inner)
    frag = heading or (f"^{block}" if block else None)
    if embed and target and escapes_vault(ctx, target):
        ctx.problems.append(f"embed outside the vault refused: {target}")
        return ctx.notice(
            f"⊘ Refused: “{escape(target)}” lies outside the vault", error=True
        ), False
    ext = target.rsplit(".", 1)[-1].lower() if "." in target else ""
    # A file drawn in place: an attachment, or a file of a kind the registry draws that is
    # there by that very name (a canvas, which is an entry too; sketch.excalidraw) — not
    # "Drawing.excalidraw" naming the note "Drawing.excalidraw.md" (embed_html draws it).
    drawn_file = ext in ATTACHMENT_EMBEDS and (
        ext in DRAWN_AS_FILES or bool(other_file_src(ctx, target))
    )
    if embed and (is_attachment(target) or drawn_file):
        size = alias if alias and re.fullmatch(r"\d+(x\d+)?", alias) else None
        if ext in ("png", "jpg", "jpeg", "gif", "webp", "svg", "bmp"):
            return image_html(ctx, target, alias if not size and alias else target, size), False
        if (draw := ATTACHMENT_EMBEDS.get(ext)) is not None:
            return draw(ctx, target, alias, frag), True
        src, refusal = attachment_src(ctx, target)
        if src is None:
            return ctx.notice(refusal or "", error=True), False
        return f'<a href="{escape(src)}">▤ {escape(target)}</a>', False
    if embed:
        return embed_html(ctx, target, heading, block, alias), True
    if not target:  # [[#Heading]]: this entry
        shown = alias or (heading or block or "")
        return ctx.internal_link(EntryRef(ctx.entry_id, "", ""), escape(shown), frag), False
    if is_attachment(target):
        src, _ = attachment_src(ctx, target)
        if src:
            return f'<a href="{escape(src)}">{escape(alias or target)}</a>', False
    shown = alias or (f"{target} › {heading or block}" if frag else target)
    ref = ctx.resolve(target)
    if ref is None and (src := other_file_src(ctx, target)):  # paper.sh: no note, a file
        return f'<a href="{escape(src)}">{escape(alias or target)}</a>', False
    if ref is None:
        ctx.problems.append(f"unresolved link: {target}")
        return ctx.unresolved_link(target, escape(shown)), False
    return ctx.internal_link(ref, escape(shown), frag), False


# ---------------------------------------------------------------- embeds
def embed_html(
    ctx: RenderContext,
    target: str,
    heading: str | None,
    block: str | None,
    alias: str | None = None,
) -> str:
    p = ctx.palette
    ref = ctx.resolve(target)
    ext = target.rsplit(".", 1)[-1].lower() if "." in target else ""
    if ref is None and ext in ATTACHMENT_EMBEDS and other_file_src(ctx, target):
        # a file no entry is named after, of a kind drawn in place (drawing.excalidraw)
        return ATTACHMENT_EMBEDS[ext](ctx, target, alias, heading or block)
    if ref is None:
        ctx.problems.append(f"unresolved embed: {target}")
        return ctx.notice(
            f"Embedded entry not found: {ctx.unresolved_link(target, escape(target))}",
            error=True,
            block=True,
        )
    if ref.id == ctx.entry_id or ref.id in ctx.chain:
        path = " → ".join((*ctx.chain, ctx.entry_id, ref.id))
        ctx.problems.append(f"embed cycle: {path}")
        return ctx.notice(
            f"↻ Embed cycle: {escape(path)} — not embedded again", error=True, block=True
        )
    if ctx.depth + 1 > MAX_EMBED_DEPTH:
        ctx.problems.append(f"embed too deep: {ref.id}")
        return ctx.notice(
            f"Embeds nest deeper than {MAX_EMBED_DEPTH}: "
            + ctx.internal_link(ref, escape(ref.short_label), heading),
            block=True,
        )
    if ctx.budget.embeds >= MAX_EMBEDS:
        ctx.budget.cut("embeds", f"only the first {MAX_EMBEDS} embeds are shown, the rest as links")
        return ctx.notice(
            "↪ Not embedded (too many embeds): "
            + ctx.internal_link(ref, escape(ref.short_label), heading),
            block=True,
        )
    ctx.budget.embeds += 1
    if is_drawing_note(ref.path):  # the plugin's drawing: drawn, not its Markdown
        return lazy("drawings", "drawing_picture_html")(ctx, ref.path, alias)
    try:
        body = ctx.resolver.embed_body(ref.id)
    except Exception as exc:
        ctx.problems.append(f"embed lookup failed for {ref.id}: {exc}")
        body = None
    if body is None:
        return ctx.notice(
            f"Embedded entry has no body: {escape(ref.short_label)}", error=True, block=True
        )
    if drawing_block(body) is not None:  # the plugin's drawing, not named *.excalidraw.md
        return lazy("drawings", "drawing_picture_html")(ctx, ref.path, alias)
    if heading:
        body = section_of(body, heading)
    elif block:
        body = block_of(body, block)
    child = ctx.child(ref.id, ref.path)
    assert child.render_body is not None, "embeds are met inside markdown_to_html"
    inner = child.render_body(body, child)  # the embed is rendered as a page of its own
    title = ctx.internal_link(
        ref, escape(ref.short_label + (f" › {heading}" if heading else "")), heading
    )
    return (
        f'<table class="embed" width="100%" cellspacing="0" cellpadding="10" border="1" '
        f'style="border-color: {p.box_border}; border-style: solid; margin-top: 8px; '
        f'margin-bottom: 12px;"><tr><td>'
        f'<p style="font-size: small; margin-top: 0;">↪ {title}</p>{inner}</td></tr></table>'
    )


def section_of(body: str, heading: str) -> str:
    """The part of ``body`` under the heading named ``heading`` (matched as Obsidian matches
    it: :func:`anthology.vault.links.match_heading`)."""
    lines = body.splitlines()
    found: list[tuple[int, int, str]] = []  # (line, level, text) of each heading
    for i, line in enumerate(mask_code(body).splitlines()):
        m = re.match(r"^(#{1,6})\s+(.*?)\s*#*\s*$", line)
        if m:
            found.append((i, len(m.group(1)), m.group(2)))
    hit = match_heading([text for _i, _level, text in found], heading)
    if hit is None:
        return f"*(no heading “{heading}” in this entry)*"
    start, level, _text = found[hit]
    end = next((i for i, lv, _t in found[hit + 1 :] if lv <= level), len(lines))
    return "\n".join(lines[start:end])


_ITEM_RE = re.compile(r"^(\s*)(?:[-*+]|\d{1,9}[.)])\s")


def block_of(body: str, block: str) -> str:
    """The block ``^block`` names, as Obsidian finds it (help page "Link to blocks"):

    - the paragraph whose line ends with `` ^block``;
    - in a list, only the item (with its sub-items) whose line ends so;
    - for a quote, list, table or callout, the id alone on a line of its own after it
      (after a blank line, or right under its last line): the block above the id.
    """
    ident = re.compile(rf"(?:^|\s)\^{re.escape(block)}[ \t]*$", re.I)
    alone = re.compile(rf"^[ \t]*\^{re.escape(block)}[ \t]*$", re.I)
    paras = re.split(r"\n[ \t]*\n", body)
    for i, para in enumerate(paras):
        lines = para.split("\n")
        at = next((n for n, line in enumerate(lines) if ident.search(line)), None)
        if at is None:
            continue
        if alone.match(lines[at]):
            above = "\n".join(lines[:at]).strip("\n")
            if above.strip():
                return above
            return paras[i - 1] if i > 0 else f"*(no block ^{block} in this entry)*"
        return _list_item(lines, at) or para
    return f"*(no block ^{block} in this entry)*"


def _list_item(lines: list[str], at: int) -> str | None:
    """The list item (with its sub-items) holding line ``at``, or None outside a list."""
    start = next((n for n in range(at, -1, -1) if _ITEM_RE.match(lines[n])), None)
    if start is None:
        return None
    indent = len(_ITEM_RE.match(lines[start]).group(1))  # type: ignore[union-attr]
    end = start + 1
    while end < len(lines):
        m = _ITEM_RE.match(lines[end])
        if m and len(m.group(1)) <= indent:
            break
        end += 1
    if at >= end:
        return None  # the line is past the item: a paragraph after a list
    item = lines[start:end]
    return "\n".join(line[indent:] for line in item)
