"""A realistic entry (LIT-008, as the seed page publishes it) and a fake vault to render it in.

Shared with tests/ui/test_entry_pane.py; the tests at the bottom check the sample itself.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

from anthology.vault.links import is_attachment
from anthology.vault.model import Entry, EntryRef, Relation

LIT_008_BODY = r"""Vaswani et al. (2017) introduced the Transformer. [[SOTA-050]] rests on it, and
[[NOTE-011|the reading note]] reads it in full; see also [[LIT-709#Results]].

[TOC]

## Key takeaways

- Relating two positions takes a constant number of operations, against ConvS2S's linear and
  ByteNet's logarithmic growth in distance.
- The cost of that is "reduced effective resolution due to averaging attention-weighted
  positions", and ==multi-head attention exists to counteract it==.
- The $1/\sqrt{d_k}$ scaling has a stated reason: unscaled, the dot products grow large and
  push the softmax into regions with tiny gradients.[^var]
- ~~Additive attention is better~~: dot-product attention is chosen as *much faster*.

## The variance argument

With $q$ and $k$ of independent components, mean $0$ and variance $1$, the dot product
$q \cdot k = \sum_{i=1}^{d_k} q_i k_i$ has mean $0$ and variance $d_k$. Hence

$$
\mathrm{Attention}(Q, K, V) = \mathrm{softmax}\!\left(\frac{Q K^\top}{\sqrt{d_k}}\right) V
$$

> [!note] Why the square root
> Dividing by $\sqrt{d_k}$ brings the variance of the scores back to $1$, whatever $d_k$.

> [!warning] Hedged claim
> The paper hedges C3 as "we suspect", which is weaker than the flat statement the field
> repeats.

| Model | BLEU EN-DE | BLEU EN-FR | Training cost (FLOPs) |
|---|---:|---:|---:|
| ConvS2S | 25.16 | 40.46 | $1.5 \cdot 10^{20}$ |
| Transformer (base) | 27.3 | 38.1 | $3.3 \cdot 10^{18}$ |
| Transformer (big) | **28.4** | **41.8** | $2.3 \cdot 10^{19}$ |

```python
import torch

def attention(q, k, v):
    # scale by 1/sqrt(d_k): keeps softmax out of saturation
    scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    return torch.softmax(scores, dim=-1) @ v
```

## Standing in the anthology

The source of [[SOTA-050]]. Read in full for #114; the reading is [[NOTE-011]]. The
practice is confirmed, and gains the reason behind the formula it states.

- [x] Read the paper in full
- [ ] Reproduce the variance plot

```demo
attention-scaling
```

Primer ([[LIT-709]]) needs 1.75–2.34× less compute than a vanilla Transformer at 35M on
LM1B. The [arXiv page](https://arxiv.org/abs/1706.03762) has the paper; an unwritten entry
is [[LIT-999]].

[^var]: If $q$ and $k$ have independent components with mean 0 and variance 1, then
    $q \cdot k$ has mean 0 and variance $d_k$.
"""

REF = {
    "LIT-008": EntryRef("LIT-008", "Attention Is All You Need", "LIT-008.md"),
    "LIT-709": EntryRef(
        "LIT-709",
        "Primer: Searching for Efficient Transformers for Language Modeling",
        "LIT-709.md",
    ),
    "SOTA-050": EntryRef("SOTA-050", "Scale attention weights by 1/sqrt(head_dim)", "SOTA-050.md"),
    "NOTE-011": EntryRef("NOTE-011", "Attention Is All You Need", "notes/NOTE-011.md"),
}


class FakeResolver:
    """Resolves ids (case-insensitively) and vault files under ``root``, like the index."""

    def __init__(self, root: Path, bodies: dict[str, str] | None = None) -> None:
        self.root = root
        self.refs = dict(REF)
        self.bodies = dict(bodies or {})
        self.calls: list[str] = []

    def resolve(self, target: str, source_path: str) -> EntryRef | None:
        self.calls.append(target)
        name = target.removesuffix(".md").rsplit("/", 1)[-1].upper()
        return self.refs.get(name)

    def attachment(self, target: str, source_path: str) -> Path | None:
        # As the index: any file the vault holds that is not a note (paper.sh, data.json)
        if target.lower().endswith(".md") or not (is_attachment(target) or "." in target):
            return None
        path = (self.root / target).resolve()
        try:
            path.relative_to(self.root.resolve())
        except ValueError:
            return None
        return path if path.is_file() else None

    def embed_body(self, entry_id: str) -> str | None:
        return self.bodies.get(entry_id)


def lit_008(body: str = LIT_008_BODY, **changes) -> Entry:
    entry = Entry(
        id="LIT-008",
        path="LIT-008.md",
        title="Attention Is All You Need",
        kind="literature",
        status="active",
        tags=["model-architecture", "attention-techniques"],
        aliases=[],
        properties={
            "id": "LIT-008",
            "title": "Attention Is All You Need",
            "kind": "literature",
            "status": "active",
            "version": 2,
            "tags": ["model-architecture", "attention-techniques"],
            "authors": "Vaswani et al.",
            "year": 2017,
            "arxiv": "1706.03762",
            "compared_against": ["[[LIT-709]]"],
        },
        relations=[Relation("compared against", REF["LIT-709"], "[[LIT-709]]")],
        cited_by=[
            Relation("introduced by", REF["SOTA-050"], "[[LIT-008]]"),
            Relation("paper", REF["NOTE-011"], "[[LIT-008]]"),
            Relation("source", REF["SOTA-050"], "[[LIT-008]]"),
        ],
        body=body,
        body_line=13,
        words=420,
        reading_minutes=2,
        mtime=1.0,
    )
    for key, value in changes.items():
        setattr(entry, key, value)
    return entry


def png_bytes(width: int, height: int) -> bytes:
    """A real, valid RGB PNG of the given size (grey), built with zlib."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    raw = b"".join(b"\x00" + b"\x80\x80\x80" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


def make_vault(tmp_path: Path) -> FakeResolver:
    (tmp_path / "img").mkdir(exist_ok=True)
    (tmp_path / "img" / "dot.png").write_bytes(png_bytes(2, 2))
    (tmp_path / "LIT-008.md").write_text("---\nid: LIT-008\n---\n" + LIT_008_BODY)
    return FakeResolver(tmp_path)


def test_sample_entry_is_consistent(tmp_path: Path) -> None:
    resolver = make_vault(tmp_path)
    assert resolver.resolve("sota-050", "LIT-008.md") == REF["SOTA-050"]
    assert resolver.attachment("img/dot.png", "LIT-008.md") is not None
    assert resolver.attachment("../../etc/passwd.png", "LIT-008.md") is None
    assert lit_008().reading_minutes == 2
