"""Every colour Anthology shows, for both themes, in one place and free of Qt.

One :class:`Theme` a theme name, read by all who draw:

- ``window``: the Fusion palette and the chrome's stylesheet (``resources/app.qss``,
  ``@name`` filled in by :func:`anthology.ui.common.theme.apply_theme`);
- ``entry``: the entry page — inline colours of the boxes Qt's rich text would not style
  from CSS, and ``resources/entry.css`` (``$name`` filled in by the renderer);
- ``graph``: the graph view's background, nodes, rings and the colours of kinds and groups;
- ``demo``: the demo's plots.

Colours are ``#rrggbb``, or ``#rrggbbaa`` where a colour is drawn translucent (the Qt side
turns them into ``QColor`` s). The demo's scalings and the graph's first kind colours are
Okabe–Ito-like hues that stay apart for colour-blind readers on both grounds.
"""

from __future__ import annotations

from dataclasses import dataclass

THEMES = ("light", "dark")


@dataclass(frozen=True)
class WindowColours:
    window: str
    base: str
    alt: str
    text: str
    muted: str
    button: str
    highlight: str
    link: str
    border: str


@dataclass(frozen=True)
class EntryColours:
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


@dataclass(frozen=True)
class GraphColours:
    background: str
    text: str
    node: str
    ghost: str
    mention: str  # untyped links
    accent: str  # the current entry's ring, highlighted links
    trail: str
    pin: str
    search: str
    legend_bg: str
    groups: tuple[str, ...]  # kinds and colour groups, in order


@dataclass(frozen=True)
class DemoColours:
    background: str
    foreground: str
    accent: str
    scalings: dict[str, str]  # anthology.demo.attention_scaling.SCALINGS -> colour


@dataclass(frozen=True)
class Theme:
    name: str
    window: WindowColours
    entry: EntryColours
    graph: GraphColours
    demo: DemoColours


def theme(name: str) -> Theme:
    """The colours of the theme ``name`` (an unknown name gets the light theme)."""
    return _THEMES.get(name, _THEMES["light"])


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
# Okabe–Ito: distinguishable for colour-blind readers, on light and dark grounds.
_SCALINGS = {"none": "#D55E00", "1/sqrt(d)": "#0072B2", "1/d": "#009E73", "qk-norm": "#CC79A7"}

_THEMES = {
    "light": Theme(
        name="light",
        window=WindowColours(
            window="#f6f5f2",
            base="#ffffff",
            alt="#f0eee9",
            text="#1f2328",
            muted="#6a6f76",
            button="#eceae4",
            highlight="#3b6fd8",
            link="#2f5fbf",
            border="#d8d5cc",
        ),
        entry=EntryColours(
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
        graph=GraphColours(
            background="#ffffff",
            text="#2e2e2e",
            node="#8a8a8a",
            ghost="#aaaaaa96",
            mention="#7878784b",
            accent="#7b6cd9",
            trail="#7b6cd98c",
            pin="#d9962c",
            search="#0a8f9e",  # teal: apart from the pins' orange and the accent's violet
            legend_bg="#ffffffaa",
            groups=(
                "#5b8def",
                "#5fae3e",
                "#d9962c",
                "#9a6fe0",
                "#2fa9cf",
                "#e0607a",
                "#e07a3f",
                "#3aa89b",
                "#6c7ac4",
                "#1f9bb5",
                # six more, so a vault of many top folders is not half grey (40 folders in
                # the personal-vault screenshot left 30 of them in the default colour)
                "#c0a22a",
                "#a0623a",
                "#c04fb5",
                "#3f8f5a",
                "#d04444",
                "#7a8a3a",
            ),
        ),
        demo=DemoColours(
            background="#ffffff", foreground="#202020", accent="#555555", scalings=_SCALINGS
        ),
    ),
    "dark": Theme(
        name="dark",
        window=WindowColours(
            window="#1e1f22",
            base="#25262a",
            alt="#2b2d31",
            text="#dcdde0",
            muted="#9a9ca3",
            button="#2f3136",
            highlight="#5b8def",
            link="#8ab4f8",
            border="#3a3c42",
        ),
        entry=EntryColours(
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
        graph=GraphColours(
            background="#1e1e1e",
            text="#d2d2d2e6",
            node="#9a9a9a",
            ghost="#6e6e6e96",
            mention="#8c8c8c55",
            accent="#a882ff",
            trail="#a882ff8c",
            pin="#e0af68",
            search="#4fd6e0",  # cyan: apart from the pins' orange and the accent's violet
            legend_bg="#1e1e1e96",
            groups=(
                "#7aa2f7",
                "#9ece6a",
                "#e0af68",
                "#bb9af7",
                "#7dcfff",
                "#f7768e",
                "#ff9e64",
                "#73daca",
                "#c0caf5",
                "#2ac3de",
                "#e8d36a",
                "#c8956c",
                "#e07be0",
                "#56c288",
                "#ff6b6b",
                "#a9b665",
            ),
        ),
        demo=DemoColours(
            background="#1e1f22",
            foreground="#dcdcdc",
            accent="#aaaaaa",
            scalings={**_SCALINGS, "1/sqrt(d)": "#56B4E9"},  # the dark blue is lost on dark
        ),
    ),
}
