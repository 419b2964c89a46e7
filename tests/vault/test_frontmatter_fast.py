"""The front-matter fast path gives exactly what PyYAML gives, or steps aside."""

from __future__ import annotations

import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st

from anthology.vault.frontmatter import (
    _Loader,
    _plain,
    fast_properties,
    load_properties,
)

KEYS = ["id", "title", "kind", "status", "tags", "aliases", "year", "source", "x-y", "_k",
        "compared_against", "true", "On", "null", "NO", "yEs", "a b", "1a", "k:", "é"]  # fmt: skip
SCALARS = ["", "~", "null", "Null", "NULL", "nUll", "yes", "Yes", "YES", "yEs", "no", "on",
           "Off", "true", "False", "TRUE", "y", "n", "0", "00", "0123", "-7", "+7", "12_000",
           "1.5", "-0.25", "1.", ".5", "1e3", "1.0e3", ".inf", ".NaN", "0x1f", "1:30",
           "2024-01-05", "2024-13-45", "2024-1-5", "2024-01-05 10:00:00", "2024-01-05T10:00Z",
           "Vaswani et al.", "a b  c", "x #c", "x# c", "a: b", "a:b", "&a x", "*a", "!t x",
           "- x", "? x", "|", ">", "@x", "`x`", "%x", "Café", "日本", "x\u2028y", "a,b",
           "(x)", "it's", "a/b", "[[LIT-1]]", "{a: 1}", "=", "<<", "Inf", "nan", "e1"]  # fmt: skip
text_char = st.characters(blacklist_categories=("Cs",), max_codepoint=0x3000)
scalar = st.one_of(st.sampled_from(SCALARS), st.text(text_char, max_size=12))


def _quoted(s: str, q: str) -> str:
    return f"{q}{s}{q}"


value = st.one_of(
    scalar,
    st.builds(_quoted, scalar, st.sampled_from(['"', "'"])),
    st.lists(
        st.one_of(scalar, st.builds(_quoted, scalar, st.sampled_from(['"', "'"]))), max_size=4
    ).map(lambda items: "[" + ", ".join(items) + "]"),
    st.sampled_from(["[]", "[ ]", "[a,]", "[a, [b]]", "[a,b]", "[ a , b ]", '["[[X]]", "[[Y]]"]']),
)
line = st.one_of(
    st.builds(
        lambda k, sep, v, tail: f"{k}{sep}{v}{tail}",
        st.sampled_from(KEYS),
        st.sampled_from([": ", ":  ", ":", ":\t"]),
        value,
        st.sampled_from(["", " ", "  # note", "\r"]),
    ),
    st.sampled_from(["", "# comment", "  # indented comment", "  - item", "---", "\t"]),
)


def _pyyaml(text: str):
    value = yaml.load(text, Loader=_Loader)
    if value is None:
        return {}  # as load_properties reads an empty document
    if not isinstance(value, dict):
        return None
    return {str(k): _plain(v, [10_000]) for k, v in value.items()}


@settings(max_examples=1000, deadline=None)
@given(st.one_of(line, st.lists(line, min_size=1, max_size=8).map("\n".join)))
@example('id: LIT-1\ntitle: "Attention 3"\ntags: [a, b/c]\nyear: 2017\nx: 1.5\nd: 2024-01-05\n')
@example('source: ["[[LIT-00001]]", "[[LIT-2]]"]\nstatus: active\nnothing:\n')
def test_the_fast_path_agrees_with_pyyaml(text: str) -> None:
    fast = fast_properties(text)
    if fast is None:
        return
    try:
        expected = _pyyaml(text)
    except Exception as exc:
        raise AssertionError(f"fast path read {fast!r}, PyYAML raised {exc!r}") from None
    assert repr(fast) == repr(expected)


def test_the_fast_path_covers_the_usual_front_matter() -> None:
    text = (
        "id: LIT-008\ntitle: Attention Is All You Need\nkind: literature\nstatus: active\n"
        "version: 2\ntags: [model-architecture, attention-techniques]\nauthors: Vaswani et al.\n"
        'year: 2017\narxiv: "1706.03762"\ncompared_against: ["[[LIT-709]]"]\n'
    )
    assert fast_properties(text) is not None
    assert load_properties(text) == _pyyaml(text)


def test_anything_unusual_goes_to_pyyaml() -> None:
    for text in ("a: yEs", "a: 0123", "a: [x,]", "a:\n  - b", "true: 1", "a: x # c",
                 "a: \"x\\ty\"", "a: 1e3", "a: &x 1", "a:\tb", "a: 2024-13-45"):  # fmt: skip
        assert fast_properties(text) is None, text


simple_word = st.from_regex(r"[A-Za-z][A-Za-z0-9 .,()/'+&\-]{0,10}", fullmatch=True)
simple_scalar = st.one_of(
    simple_word,
    st.integers(-(10**12), 10**12).map(str),
    st.floats(-1e6, 1e6, allow_nan=False).map(lambda f: f"{f:.3f}"),
    st.dates().map(lambda d: d.isoformat()),
    st.sampled_from(SCALARS),
)
simple_value = st.one_of(
    simple_scalar,
    st.builds(_quoted, st.text(text_char, max_size=10), st.sampled_from(['"', "'"])),
    st.lists(simple_scalar, max_size=4).map(lambda items: "[" + ", ".join(items) + "]"),
)
simple_line = st.builds(lambda k, v: f"{k}: {v}", st.sampled_from(KEYS), simple_value)


@settings(max_examples=800, deadline=None)
@given(st.lists(simple_line, min_size=1, max_size=6).map("\n".join))
def test_the_fast_path_agrees_with_pyyaml_on_plain_front_matter(text: str) -> None:
    test_the_fast_path_agrees_with_pyyaml.hypothesis.inner_test(text)
