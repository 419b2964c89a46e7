"""Where a link or picture written in an entry may point: attachments inside the vault
(``vault:`` URLs), remote pictures shown as links, and every other URL by :func:`url_policy`."""

from __future__ import annotations

import posixpath
import re
from html import escape
from pathlib import Path
from urllib.parse import quote

from ..links import (
    is_attachment,
    split_markdown_target,
)
from .context import (
    RenderContext,
    quote_all,
)

_EXTERNAL_SCHEMES = ("http:", "https:", "mailto:")
_SCHEME_RE = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.\-]*):")


def vault_src(ctx: RenderContext, path: Path) -> str | None:
    """``vault:`` URL of an attachment path, or None when it lies outside the vault."""
    if ctx.vault_root is None:
        return "vault:" + quote(path.as_posix(), safe="/")
    try:
        rel = path.resolve().relative_to(ctx.vault_root.resolve())
    except (ValueError, OSError):
        return None
    return "vault:" + quote(rel.as_posix(), safe="/")


def escapes_vault(ctx: RenderContext, target: str) -> bool:
    if target.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:[\\/]", target):
        return True
    joined = posixpath.normpath(
        posixpath.join(posixpath.dirname(ctx.source_path), target.replace("\\", "/"))
    )
    return joined == ".." or joined.startswith("../")


def attachment_src(ctx: RenderContext, target: str) -> tuple[str | None, str | None]:
    """(src, None) for a readable attachment, (None, notice text) otherwise."""
    if escapes_vault(ctx, target):
        ctx.problems.append(f"attachment outside the vault refused: {target}")
        return None, f"⊘ Refused: “{escape(target)}” lies outside the vault"
    try:
        path = ctx.resolver.attachment(target, ctx.source_path)
    except Exception as exc:  # the resolver is the lead's; never let it break a page
        ctx.problems.append(f"attachment lookup failed for {target}: {exc}")
        path = None
    if path is None:
        ctx.problems.append(f"missing attachment: {target}")
        return None, f"⊘ Missing attachment: “{escape(target)}”"
    src = vault_src(ctx, Path(path))
    if src is None:
        ctx.problems.append(f"attachment outside the vault refused: {target}")
        return None, f"⊘ Refused: “{escape(target)}” lies outside the vault"
    return src, None


def other_file_src(ctx: RenderContext, target: str) -> str | None:
    """The src of a file of a kind that is no attachment by name (``paper.sh``,
    ``data.json``: see links.ATTACHMENT_EXTENSIONS) when the vault holds it; asked once no
    entry has that name. None otherwise, and nothing is reported."""
    if "." not in target.rsplit("/", 1)[-1] or escapes_vault(ctx, target):
        return None
    try:
        path = ctx.resolver.attachment(target, ctx.source_path)
    except Exception:  # the resolver is the lead's; never let it break a page
        return None
    return vault_src(ctx, Path(path)) if path is not None else None


def image_html(ctx: RenderContext, target: str, alt: str, size: str | None = None) -> str:
    if not ctx.take_image():
        return ctx.notice(f"▣ {escape(target)}")
    src, refusal = attachment_src(ctx, target)
    if src is None:
        return ctx.notice(refusal or "", error=True)
    dims = ""
    if size:
        w, _, h = size.partition("x")
        if w.strip().isdigit():
            dims += f' width="{int(w)}"'
        if h.strip().isdigit():
            dims += f' height="{int(h)}"'
    return f'<img src="{escape(src)}" alt="{escape(alt)}"{dims} />'


def remote_image_html(ctx: RenderContext, url: str, alt: str) -> str:
    p = ctx.palette
    shown = escape(url if len(url) <= 120 else url[:117] + "…")
    what = f"“{escape(alt)}” — " if alt else ""
    return (
        f'<span class="remote-image" style="color: {p.muted}; background-color: {p.box_bg};">'
        f"&#160;▣ Remote image not loaded: {what}"
        f'<a href="{escape(url)}" style="color: {p.external};">{shown}</a>&#160;</span>'
    )


def url_policy(
    ctx: RenderContext, url: str, kind: str, attrs: dict[str, str]
) -> tuple[str, str] | None:
    """What a link or image URL written in an entry becomes (None: removed)."""
    raw = url.strip()
    squashed = re.sub(r"[\x00-\x20\x7f]+", "", raw)  # "java\tscript:" is javascript:
    m = _SCHEME_RE.match(squashed)
    scheme = m.group(1).lower() + ":" if m else ""
    is_remote = scheme in ("http:", "https:") or squashed.startswith("//")
    if kind == "image":
        alt = attrs.get("alt", "")
        if is_remote:
            link = raw if scheme else "https:" + raw
            return ("html", remote_image_html(ctx, link, alt))
        if scheme:  # data:, file:, javascript:, vault:, math: … written by an author
            ctx.problems.append(f"image source refused: {raw[:80]}")
            return (
                "html",
                ctx.notice(f"⊘ Refused image source “{escape(raw[:80])}”", error=True),
            )
        parts = split_markdown_target(raw)
        if parts is None or not parts[0]:
            return None
        if not ctx.take_image():
            return ("html", ctx.notice(f"▣ {escape(parts[0])}"))
        src, refusal = attachment_src(ctx, parts[0])
        if src is None:
            return ("html", ctx.notice(refusal or "", error=True))
        return ("href", src)
    # links
    if scheme in _EXTERNAL_SCHEMES:
        return ("href", raw)
    if scheme or squashed.startswith("//"):
        ctx.problems.append(f"link removed: {raw[:80]}")
        return None
    if raw.startswith("#"):
        return ("href", raw)
    parts = split_markdown_target(raw)
    if parts is None:
        return None
    path, heading, block = parts
    frag = heading or (f"^{block}" if block else None)
    if not path:
        return ("href", ctx.entry_href(ctx.entry_id, frag))
    if is_attachment(path):
        src, _ = attachment_src(ctx, path)
        return ("href", src) if src else None
    ref = ctx.resolve(path)
    if ref is None and (src := other_file_src(ctx, path)):
        return ("href", src)
    if ref is None:
        ctx.problems.append(f"unresolved link: {path}")
        return ("href", f"unresolved:{quote_all(path)}")
    return ("href", ctx.entry_href(ref, frag))
