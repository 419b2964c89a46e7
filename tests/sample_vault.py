"""The realistic sample vault the tests write to a temp folder: every link form, typed
relations, an alias, a path link, a URL-encoded Markdown link, an attachment, code and
comments that must not count. A module of its own so that any test can import it
(``from sample_vault import …``) without guessing which ``conftest`` is on the path."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REALISTIC_VAULT: dict[str, str] = {
    "HOME.md": """---
id: HOME
title: Home
kind: home
---
# Home

Start with [[LIT-008]], then the practice [[SOTA-050|scaling]].
Folders: [[papers/LIT-709]] and [a note](notes/Reading%20note.md).
""",
    "papers/LIT-008.md": """---
id: LIT-008
title: Attention Is All You Need
kind: literature
status: active
version: 2
tags: [model-architecture, attention-techniques]
authors: Vaswani et al.
year: 2017
arxiv: "1706.03762"
compared_against: ["[[LIT-709]]"]
---
# Attention Is All You Need

Body with [[SOTA-050]], [[NOTE-011|the reading note]], [[LIT-709#Results]] and a
block link [[NOTE-011#^key-claim]]. Tagged #transformers and #area/attention.

| paper | link |
| ----- | ---- |
| Primer | [[LIT-709\\|Primer]] |

```python
# [[not-a-link-in-code]] #not-a-tag
x = 1
```

Inline `[[not-in-inline-code]]` and <!-- [[not-in-comment]] --> stay out.
See https://example.com/page#fragment for the web.
""",
    "papers/LIT-709.md": """---
id: LIT-709
title: "Primer: Searching for Efficient Transformers for Language Modeling"
kind: literature
aliases: [Primer]
---
## Results

Primer-EZ beats the vanilla Transformer; see Attention Is All You Need for the base.
![[diagram.png]]
""",
    "practices/SOTA-050.md": """---
id: SOTA-050
title: Scale attention weights by 1/sqrt(head_dim)
kind: practice
introduced_by: "[[LIT-008]]"
source: "[[LIT-008]]"
---
Divide by $\\sqrt{d_k}$. The [[Primer]] alias resolves. ![[NOTE-011]] embeds.
A link to [[Missing Entry]] stays unresolved.
""",
    "notes/NOTE-011.md": """---
id: NOTE-011
title: Attention Is All You Need
kind: note
paper: "[[LIT-008]]"
---
The reading. ^key-claim
""",
    "notes/Reading note.md": """# Reading note, with spaces

Non-ASCII: café, naïve. Links back to [[HOME]].
""",
    "attachments/diagram.png": "\x89PNG fake",
}


def write_vault(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def write_newer(path: Path, text: str) -> None:
    """Write one note (its folders made) with a visibly newer mtime, however fast the test
    runs: the index tells changed files by mtime and size."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 2_000_000_000))


def kill_while_creating(vault: Path, db: Path, point: str = "schema") -> None:
    """Open the index ``db`` of ``vault`` in a child process killed (SIGKILL, as kill -9)
    while it makes the index: right after the new file is opened (``point="opened"``), or
    halfway through its schema (``"schema"``: two tables written, not committed)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    child = subprocess.run([sys.executable, "-c", _KILLED_MID_CREATE, vault, db, point],
                           env=env, capture_output=True)  # fmt: skip
    assert child.returncode == -9, child.stderr  # killed where it was meant to be


_KILLED_MID_CREATE = """
import os, signal, sqlite3, sys
from pathlib import Path
from anthology.vault import schema
point = sys.argv[3]
real_connect = sqlite3.connect
def kill_at_entries(action, arg1, *_):
    if action == sqlite3.SQLITE_CREATE_TABLE and arg1 == "entries":
        os.kill(os.getpid(), signal.SIGKILL)  # meta and files are made, entries not
    return sqlite3.SQLITE_OK
def connect(*args, **kwargs):
    conn = real_connect(*args, **kwargs)
    if point == "opened":
        os.kill(os.getpid(), signal.SIGKILL)
    conn.set_authorizer(kill_at_entries)
    return conn
schema.sqlite3.connect = connect
from anthology.vault.index import VaultIndex
VaultIndex.open(Path(sys.argv[1]), Path(sys.argv[2]))
"""
