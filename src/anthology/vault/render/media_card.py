"""An embedded audio or video file (``![[talk.mp3]]``, ``![](clip.mp4)``) as a card: its
name, what it is, how long it plays and its size, and a ▶ that opens it in the system's
player (the entry pane's ``vault:`` link: :func:`anthology.vault.attachments.open_policy`
decides whether it opens at once or asks first).

There is no player inside the window, on purpose: Qt's player (QtMultimedia) ships only in
PySide6-Addons, 175 MB to download and 438 MB installed beside the 234 MB of the Essentials
the app uses (measured for 6.11.3; see README, "What Anthology draws"). The length is read
from the file's header by :mod:`anthology.vault.media`, in pure Python, a few KB a file.
"""

from __future__ import annotations

from html import escape
from urllib.parse import unquote

from ..media import MEDIA_EXTENSIONS, MediaInfo, duration_text, probe_media, size_text
from .context import RenderContext
from .urls import attachment_src

# Files probed per render (the entry and its embeds); past it a card says only the name, so
# an entry listing 10,000 recordings reads no more than this many headers.
MAX_MEDIA_PROBES = 100


def media_card(ctx: RenderContext, target: str, alias: str | None, _frag: str | None) -> str:
    """The card of the media file ``target`` as written in the entry (block-level HTML)."""
    src, refusal = attachment_src(ctx, target)
    if src is None:
        return ctx.notice(refusal or "", error=True, block=True)
    name = target.replace("\\", "/").rsplit("/", 1)[-1]
    extension = name.rsplit(".", 1)[-1].lower()
    kind = MEDIA_EXTENSIONS.get(extension, ("audio", ""))[0]
    info: MediaInfo | None = None
    if ctx.vault_root is not None and ctx.budget.media_probes < MAX_MEDIA_PROBES:
        ctx.budget.media_probes += 1
        info = probe_media(ctx.vault_root, unquote(src[len("vault:") :]))
    elif ctx.vault_root is not None:
        ctx.budget.cut(
            "media", f"the length of only the first {MAX_MEDIA_PROBES} media files is read"
        )
    return _card_html(ctx, src, alias if alias and not alias.isdigit() else name, kind, info)


def _card_html(ctx: RenderContext, src: str, title: str, kind: str, info: MediaInfo | None) -> str:
    p = ctx.palette
    playable = info is None or info.playable
    if info is not None:
        kind = info.kind
    facts = ["Video" if kind == "video" else "Audio"]
    note = ""
    if info is not None and not info.playable:
        facts = [f"Not a playable file: {info.problem}"]
        if info.size:
            facts.append(size_text(info.size))
    elif info is not None:
        facts.append(info.container or "")
        facts.append(
            duration_text(info.duration) if info.duration is not None else "length unknown"
        )
        facts.append(size_text(info.size))
        if info.problem:
            note = f" ({info.problem})"
    line = escape(" · ".join(f for f in facts if f) + note)
    fact_colour = p.muted if playable else p.error
    if playable:
        button = (
            f'<a class="media-play" href="{escape(src)}" title="Play in the system\'s player" '
            f'style="color: {p.link}; text-decoration: none; font-size: x-large;">▶</a>'
        )
    else:
        button = f'<span style="color: {p.error}; font-size: x-large;">⊘</span>'
    return (
        f'<table class="media" width="100%" cellspacing="0" cellpadding="8" border="1" '
        f'bgcolor="{p.box_bg}" style="border-color: {p.box_border}; border-style: solid; '
        f'margin-top: 6px; margin-bottom: 10px;"><tr>'
        f'<td width="40" align="center" valign="middle">{button}</td>'
        f'<td valign="middle"><b>{escape(title)}</b><br />'
        f'<span style="color: {fact_colour}; font-size: small;">{line}</span></td>'
        f"</tr></table>"
    )
