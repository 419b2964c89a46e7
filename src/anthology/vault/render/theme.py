"""Colours of the entry page, per theme.

Qt's rich-text engine ignores most class-based CSS on tables and cells, so boxes that must
look right (properties, callouts, code, embeds) take their colours from here as inline
attributes; ``resources/entry.css`` styles the typography with these values filled in.
"""

from __future__ import annotations

from dataclasses import dataclass

THEMES = ("light", "dark")


@dataclass(frozen=True)
class Palette:
    name: str
    text: str
    muted: str
    background: str
    link: str
    external: str
    unresolved: str
    unresolved_bg: str
    chip_bg: str
    chip_text: str
    box_bg: str  # properties box, code blocks
    box_border: str
    table_border: str
    code_bg: str
    code_text: str  # text of code blocks without a lexer
    inline_code_bg: str
    highlight_bg: str
    footnote: str
    error: str
    error_bg: str
    math: str
    pygments_style: str
    callouts: dict[str, tuple[str, str]]  # kind -> (accent, background)


_LIGHT_CALLOUTS = {
    "note": ("#086ddd", "#eef5fd"),
    "info": ("#086ddd", "#eef5fd"),
    "abstract": ("#00a3b4", "#e8f7f8"),
    "todo": ("#086ddd", "#eef5fd"),
    "tip": ("#00a67e", "#e8f6f2"),
    "success": ("#08a33c", "#eaf7ee"),
    "question": ("#c98a00", "#fcf5e6"),
    "warning": ("#d97706", "#fdf3e7"),
    "failure": ("#d93838", "#fcecec"),
    "danger": ("#d93838", "#fcecec"),
    "bug": ("#d93838", "#fcecec"),
    "example": ("#7852ee", "#f3effd"),
    "quote": ("#8a8a8a", "#f4f4f4"),
}
_DARK_CALLOUTS = {
    "note": ("#4ea1ff", "#1d2a3a"),
    "info": ("#4ea1ff", "#1d2a3a"),
    "abstract": ("#3cc6d3", "#173033"),
    "todo": ("#4ea1ff", "#1d2a3a"),
    "tip": ("#2ecfa3", "#17302a"),
    "success": ("#4bd47a", "#18301f"),
    "question": ("#e6b040", "#342b17"),
    "warning": ("#f0a050", "#36291a"),
    "failure": ("#ff6b6b", "#3a1f1f"),
    "danger": ("#ff6b6b", "#3a1f1f"),
    "bug": ("#ff6b6b", "#3a1f1f"),
    "example": ("#a78bfa", "#2a2340"),
    "quote": ("#a0a0a0", "#2a2a2a"),
}

PALETTES = {
    "light": Palette(
        name="light",
        text="#222222",
        muted="#6b6f76",
        background="#ffffff",
        link="#5b47c9",
        external="#1f6fbf",
        unresolved="#b8453a",
        unresolved_bg="#fbeeec",
        chip_bg="#ece9fb",
        chip_text="#4a3bb0",
        box_bg="#f7f7f8",
        box_border="#e2e2e6",
        table_border="#d4d4da",
        code_bg="#f6f7f9",
        code_text="#24292f",
        inline_code_bg="#eff0f3",
        highlight_bg="#fff1a8",
        footnote="#555a61",
        error="#c0392b",
        error_bg="#fdecea",
        math="#222222",
        pygments_style="friendly",
        callouts=_LIGHT_CALLOUTS,
    ),
    "dark": Palette(
        name="dark",
        text="#dcddde",
        muted="#9a9ea6",
        background="#1e1e21",
        link="#a99bff",
        external="#6cb6ff",
        unresolved="#f08a7e",
        unresolved_bg="#3a2523",
        chip_bg="#2f2a4a",
        chip_text="#c4b8ff",
        box_bg="#26262a",
        box_border="#3a3a40",
        table_border="#4a4a52",
        code_bg="#26262b",
        code_text="#e6edf3",
        inline_code_bg="#2e2e34",
        highlight_bg="#5c4d10",
        footnote="#b3b6bc",
        error="#ff7b72",
        error_bg="#3d1f1d",
        math="#dcddde",
        pygments_style="github-dark",
        callouts=_DARK_CALLOUTS,
    ),
}

CALLOUT_ALIASES = {
    "summary": "abstract",
    "tldr": "abstract",
    "hint": "tip",
    "important": "tip",
    "check": "success",
    "done": "success",
    "help": "question",
    "faq": "question",
    "caution": "warning",
    "attention": "warning",
    "fail": "failure",
    "missing": "failure",
    "error": "danger",
    "cite": "quote",
}

CALLOUT_ICONS = {
    "note": "✎",
    "info": "ℹ",
    "abstract": "☰",
    "todo": "☑",
    "tip": "✦",
    "success": "✔",
    "question": "?",
    "warning": "⚠",
    "failure": "✘",
    "danger": "⚡",
    "bug": "✱",
    "example": "▤",
    "quote": "❝",
}


def palette(theme: str) -> Palette:
    return PALETTES.get(theme, PALETTES["light"])


def callout_style(palette_: Palette, kind: str) -> tuple[str, str, str, str]:
    """(canonical kind, accent colour, background colour, icon) of a callout type."""
    kind = CALLOUT_ALIASES.get(kind.lower(), kind.lower())
    accent, bg = palette_.callouts.get(kind, palette_.callouts["note"])
    return kind, accent, bg, CALLOUT_ICONS.get(kind, CALLOUT_ICONS["note"])
