"""The WHATWG host parser: IPv4 numbers, IPv6, opaque hosts and domains (private to :mod:`jscompat.urls`).

Known deviation: hosts with non-ASCII characters go through an approximation of UTS #46
(non-transitional NFKC_Casefold with ``ß``/``ς`` kept, default-ignorables dropped, disallowed
categories rejected, the RFC 5893 Bidi rule, Punycode per label) built on Python's ``unicodedata``
instead of Node's IDNA mapping table; ASCII hosts are exact.
"""

from __future__ import annotations

from openclaw_mcp.jscompat._url_percent import (
    _ASCII_DIGIT,
    _ASCII_HEX,
    _FORBIDDEN_DOMAIN,
    _FORBIDDEN_HOST,
    _encode,
    _Failure,
    _in_c0,
    _percent_decode,
)

# --- hosts ----------------------------------------------------------------------------------------------


def _parse_ipv4_number(text: str) -> int | None:
    if text == "":
        return None
    radix = 10
    if len(text) >= 2 and text[0] == "0" and text[1] in "xX":
        text = text[2:]
        radix = 16
    elif len(text) >= 2 and text[0] == "0":
        text = text[1:]
        radix = 8
    if text == "":
        return 0
    allowed = {10: _ASCII_DIGIT, 16: _ASCII_HEX, 8: frozenset("01234567")}[radix]
    if any(c not in allowed for c in text):
        return None
    return int(text, radix)


def _ends_in_number(text: str) -> bool:
    parts = text.split(".")
    if parts[-1] == "":
        if len(parts) == 1:
            return False
        parts.pop()
    last = parts[-1]
    if last and all(c in _ASCII_DIGIT for c in last):
        return True
    return _parse_ipv4_number(last) is not None


def _parse_ipv4(text: str) -> str:
    parts = text.split(".")
    if parts[-1] == "" and len(parts) > 1:
        parts.pop()
    if len(parts) > 4:
        raise _Failure
    numbers: list[int] = []
    for part in parts:
        number = _parse_ipv4_number(part)
        if number is None:
            raise _Failure
        numbers.append(number)
    if any(n > 255 for n in numbers[:-1]):
        raise _Failure
    if numbers[-1] >= 256 ** (5 - len(numbers)):
        raise _Failure
    value = numbers[-1]
    for i, n in enumerate(numbers[:-1]):
        value += n * 256 ** (3 - i)
    return ".".join(str((value >> shift) & 0xFF) for shift in (24, 16, 8, 0))


def _parse_ipv6(text: str) -> list[int]:
    address = [0] * 8
    piece = 0
    compress: int | None = None
    p = 0
    n = len(text)

    def at(i: int) -> str:
        return text[i] if i < n else ""

    if at(p) == ":":
        if at(p + 1) != ":":
            raise _Failure
        p += 2
        piece += 1
        compress = piece
    while at(p) != "":
        if piece == 8:
            raise _Failure
        if at(p) == ":":
            if compress is not None:
                raise _Failure
            p += 1
            piece += 1
            compress = piece
            continue
        value = 0
        length = 0
        while length < 4 and at(p) != "" and at(p) in _ASCII_HEX:
            value = value * 0x10 + int(at(p), 16)
            p += 1
            length += 1
        if at(p) == ".":
            if length == 0:
                raise _Failure
            p -= length
            if piece > 6:
                raise _Failure
            numbers_seen = 0
            while at(p) != "":
                ipv4_piece: int | None = None
                if numbers_seen > 0:
                    if at(p) == "." and numbers_seen < 4:
                        p += 1
                    else:
                        raise _Failure
                if at(p) == "" or at(p) not in _ASCII_DIGIT:
                    raise _Failure
                while at(p) != "" and at(p) in _ASCII_DIGIT:
                    number = int(at(p))
                    if ipv4_piece is None:
                        ipv4_piece = number
                    elif ipv4_piece == 0:
                        raise _Failure
                    else:
                        ipv4_piece = ipv4_piece * 10 + number
                    if ipv4_piece > 255:
                        raise _Failure
                    p += 1
                assert ipv4_piece is not None
                address[piece] = address[piece] * 0x100 + ipv4_piece
                numbers_seen += 1
                if numbers_seen in (2, 4):
                    piece += 1
            if numbers_seen != 4:
                raise _Failure
            break
        if at(p) == ":":
            p += 1
            if at(p) == "":
                raise _Failure
        elif at(p) != "":
            raise _Failure
        address[piece] = value
        piece += 1
    if compress is not None:
        swaps = piece - compress
        piece = 7
        while piece != 0 and swaps > 0:
            address[piece], address[compress + swaps - 1] = address[compress + swaps - 1], address[piece]
            piece -= 1
            swaps -= 1
    elif piece != 8:
        raise _Failure
    return address


def _serialize_ipv6(address: list[int]) -> str:
    best_start, best_len = -1, 1
    i = 0
    while i < 8:
        if address[i] == 0:
            j = i
            while j < 8 and address[j] == 0:
                j += 1
            if j - i > best_len:
                best_start, best_len = i, j - i
            i = j
        else:
            i += 1
    out: list[str] = []
    ignore0 = False
    for index in range(8):
        if ignore0 and address[index] == 0:
            continue
        ignore0 = False
        if index == best_start:
            out.append("::" if index == 0 else ":")
            ignore0 = True
            continue
        out.append(f"{address[index]:x}")
        if index != 7:
            out.append(":")
    return "".join(out)


_IDEOGRAPHIC_STOPS = str.maketrans({"\u3002": ".", "\uff0e": ".", "\uff61": "."})
# UTS #46 maps these default-ignorable code points to nothing.
_IDNA_IGNORED = frozenset(
    "\u00ad\u034f\u180b\u180c\u180d\u180e\u180f\u200b\u2060\u2064\ufeff\u115f\u1160\u3164\uffa0"
    + "".join(chr(c) for c in range(0xFE00, 0xFE10))
    + "".join(chr(c) for c in range(0xE0100, 0xE01F0))
)
# U+FFFD (undecodable percent-escapes) is disallowed; ZWNJ/ZWJ fail CheckJoiners outside a virama;
# remaining controls, format characters, separators and unassigned code points are disallowed.
_IDNA_DISALLOWED = frozenset("\ufffd\u200c\u200d")
# Non-transitional processing keeps these instead of case-folding them.
_IDNA_DEVIATIONS = frozenset("\u00df\u03c2")
_IDNA_DISALLOWED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Zs"})


_BIDI_RTL_ALLOWED = frozenset({"R", "AL", "AN", "EN", "ES", "CS", "ET", "ON", "BN", "NSM"})
_BIDI_LTR_ALLOWED = frozenset({"L", "EN", "ES", "CS", "ET", "ON", "BN", "NSM"})


def _bidi_label_ok(label: str) -> bool:
    """The Bidi rule of RFC 5893 for one label of a domain containing right-to-left characters."""
    import unicodedata  # deferred: only non-ASCII hosts need the Unicode tables (≈2 ms to load)

    if not label:
        return True
    classes = [unicodedata.bidirectional(c) for c in label]
    trimmed = list(classes)
    while trimmed and trimmed[-1] == "NSM":
        trimmed.pop()
    if classes[0] in ("R", "AL"):
        return (
            all(c in _BIDI_RTL_ALLOWED for c in classes)
            and bool(trimmed)
            and trimmed[-1] in ("R", "AL", "EN", "AN")
            and not ("EN" in classes and "AN" in classes)
        )
    if classes[0] == "L":
        return all(c in _BIDI_LTR_ALLOWED for c in classes) and bool(trimmed) and trimmed[-1] in ("L", "EN")
    return False


def _domain_to_ascii(domain: str) -> str:
    if domain.isascii():
        result = domain.lower()
    else:
        import unicodedata  # deferred: only non-ASCII hosts need the Unicode tables (≈2 ms to load)

        # Approximation of UTS #46 (non-transitional): NFKC_Casefold, Punycode non-ASCII labels.
        mapped = "".join(c for c in domain.translate(_IDEOGRAPHIC_STOPS) if c not in _IDNA_IGNORED)
        if any(not c.isascii() and "." in unicodedata.normalize("NFKC", c) for c in mapped):
            raise _Failure  # dot leaders and the like are disallowed rather than mapped to "."
        mapped = unicodedata.normalize("NFKC", mapped)
        mapped = "".join("\u00df" if c == "\u1e9e" else c if c in _IDNA_DEVIATIONS else c.casefold() for c in mapped)
        mapped = unicodedata.normalize("NFKC", mapped)
        mapped = "".join(c for c in mapped.translate(_IDEOGRAPHIC_STOPS) if c not in _IDNA_IGNORED)
        if any(
            c in _IDNA_DISALLOWED or unicodedata.category(c) in _IDNA_DISALLOWED_CATEGORIES
            for c in mapped
            if not c.isascii()
        ):
            raise _Failure
        label_list = mapped.split(".")
        if any(label and unicodedata.category(label[0]).startswith("M") for label in label_list):
            raise _Failure
        if any(unicodedata.bidirectional(c) in ("R", "AL", "AN") for c in mapped) and not all(
            _bidi_label_ok(label)
            for label in label_list
            if any(unicodedata.bidirectional(c) in ("R", "AL", "AN") for c in label)
        ):
            raise _Failure
        labels: list[str] = []
        for label in label_list:
            if label.isascii():
                labels.append(label)
                continue
            try:
                labels.append("xn--" + label.encode("punycode").decode("ascii"))
            except UnicodeError as exc:
                raise _Failure from exc
        result = ".".join(labels)
    if result == "":
        raise _Failure
    return result


def _parse_host(text: str, *, opaque: bool) -> str:
    if text.startswith("["):
        if not text.endswith("]"):
            raise _Failure
        return f"[{_serialize_ipv6(_parse_ipv6(text[1:-1]))}]"
    if opaque:
        if not _FORBIDDEN_HOST.isdisjoint(text):
            raise _Failure
        return _encode(text, _in_c0)
    # Without a "%" the decode gives back the text (the parser's input is a USVString).
    domain = _percent_decode(text).decode("utf-8", errors="replace") if "%" in text else text
    ascii_domain = _domain_to_ascii(domain)
    if not _FORBIDDEN_DOMAIN.isdisjoint(ascii_domain):
        raise _Failure
    if _ends_in_number(ascii_domain):
        return _parse_ipv4(ascii_domain)
    return ascii_domain
