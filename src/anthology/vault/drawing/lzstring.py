"""LZ-String's Base64 form (``compressToBase64`` / ``decompressFromBase64`` of the
JavaScript lz-string library, MIT), which the Obsidian Excalidraw plugin writes in a
```` ```compressed-json ```` block, wrapped over lines.

Written here rather than taken from the package index: the Python ports there read the
stream one bit at a time (a 150 KB payload, a 2,000-element drawing: seconds) and pull in
``future``. This decoder reads each code as one slice of a bit string (``int(s, 2)``), so
the cost is per code, not per bit; it stops at :data:`max_chars` of output (a budget,
not a guess: the caller says how much text it will take) and raises :class:`LZStringError`
on anything that is not a whole stream, where the JavaScript returns "" or null.
"""

from __future__ import annotations

import re

_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="
# each Base64 character as its six bits, first bit first ("=" reads as zeros, as in lz-string)
_SIX_BITS = {c: format(i & 63, "06b") for i, c in enumerate(_ALPHABET)}
_SPACE_RE = re.compile(r"\s+")


class LZStringError(ValueError):
    """The payload is not an LZ-String stream (corrupt, cut short) or is over budget."""


def decompress_from_base64(text: str, *, max_chars: int = 64 * 1024 * 1024) -> str:
    """The text ``text`` (whitespace ignored) encodes; :class:`LZStringError` when it is not
    a whole stream or would be longer than ``max_chars``."""
    text = _SPACE_RE.sub("", text)
    if not text:
        raise LZStringError("empty payload")
    try:
        stream = "".join([_SIX_BITS[c] for c in text])
    except KeyError as exc:
        raise LZStringError(f"not Base64: {str(exc)[:10]}") from None
    # A code of n bits is read first bit lowest: reversed, the whole stream reads each code
    # as a plain binary number, rev[size - pos - n : size - pos].
    size = len(stream)
    rev = stream[::-1]

    def read(pos: int, n: int) -> int:
        if pos + n > size:
            raise LZStringError("payload cut short")
        return int(rev[size - pos - n : size - pos], 2)

    pos = 0
    first = read(pos, 2)
    pos += 2
    if first == 2:
        return ""
    width = 8 if first == 0 else 16 if first == 1 else 0
    if not width:
        raise LZStringError("payload does not start as a stream")
    c = chr(read(pos, width))
    pos += width
    dictionary: list[str] = ["", "", "", c]
    out: list[str] = [c]
    total = 1
    w = c
    enlarge_in, num_bits = 4, 3
    while True:
        code = read(pos, num_bits)
        pos += num_bits
        if code < 2:
            width = 8 if code == 0 else 16
            dictionary.append(chr(read(pos, width)))
            pos += width
            code = len(dictionary) - 1
            enlarge_in -= 1
        elif code == 2:
            break
        if enlarge_in == 0:
            enlarge_in = 1 << num_bits
            num_bits += 1
        if code < len(dictionary) and code > 2:
            entry = dictionary[code]
        elif code == len(dictionary):
            entry = w + w[0]
        else:
            raise LZStringError("payload refers to a phrase it never defined")
        out.append(entry)
        total += len(entry)
        if total > max_chars:
            raise LZStringError(f"payload decodes to more than {max_chars:,} characters")
        dictionary.append(w + entry[0])
        enlarge_in -= 1
        w = entry
        if enlarge_in == 0:
            enlarge_in = 1 << num_bits
            num_bits += 1
    result = "".join(out)
    if not result.isascii():
        # 16-bit codes are UTF-16 units: a character past U+FFFF came as two halves
        result = result.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return result


def compress_to_base64(text: str) -> str:
    """``text`` as LZ-String Base64 (what the plugin writes; used to make test files)."""
    units = text.encode("utf-16-le", "surrogatepass")
    chars = [chr(units[i] | units[i + 1] << 8) for i in range(0, len(units), 2)]
    bits: list[str] = []  # each output bit, in stream order

    def put(value: int, n: int) -> None:  # n bits, lowest first
        bits.extend("1" if value >> i & 1 else "0" for i in range(n))

    dictionary: dict[str, int] = {}
    to_create: set[str] = set()
    w = ""
    enlarge_in, size, num_bits = 2, 3, 2

    def emit(w: str) -> None:
        nonlocal enlarge_in, num_bits
        if w in to_create:
            code = ord(w[0])
            if code < 256:
                put(0, num_bits)
                put(code, 8)
            else:
                put(1, num_bits)
                put(code, 16)
            enlarge_in -= 1
            if enlarge_in == 0:
                enlarge_in, num_bits = 1 << num_bits, num_bits + 1
            to_create.discard(w)
        else:
            put(dictionary[w], num_bits)
        enlarge_in -= 1
        if enlarge_in == 0:
            enlarge_in, num_bits = 1 << num_bits, num_bits + 1

    for c in chars:
        if c not in dictionary:
            dictionary[c] = size
            size += 1
            to_create.add(c)
        wc = w + c
        if wc in dictionary:
            w = wc
            continue
        emit(w)
        dictionary[wc] = size
        size += 1
        w = c
    if w:
        emit(w)
    put(2, num_bits)
    bits.extend("0" * (-len(bits) % 6 or 6))  # the stream's last character, padded
    stream = "".join(bits)
    out = "".join(_ALPHABET[int(stream[i : i + 6], 2)] for i in range(0, len(stream), 6))
    return out + "=" * (-len(out) % 4)
