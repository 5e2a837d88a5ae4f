"""Translation of Ascend C sources into C++ for the CPU device.

The one construct of Ascend C sources that is not C++ is the kernel launch
``kernel<<<blockDim, l2ctrl, stream>>>(args...)``. :func:`translate` rewrites
each one into::

    ::asc::detail::chevron_launch("kernel", kernel, blockDim, l2ctrl, stream)(args...)

(see ``include/asc/kernel/debug_launch.h``) and leaves everything else alone:
comments, string/character literals (raw strings included) and digit
separators are skipped, the kernel may be qualified (``ns::k``) and templated
(``k<float, 4>``), the arguments may nest parentheses, brackets and
templates, and a launch may span lines. Lines never move: the rewritten text
keeps every newline where it was, and the output starts with::

    #include "asc/kernel/debug_launch.h"
    #line 1 "<the original path>"

so compiler diagnostics and ``__FILE__``/``__LINE__`` name the original file
and line.

A kernel declared ``__mix__(c, v)`` (CANN's MIX mode: c AIC and v AIV cores
per logical core) in the source or in a header it includes with
``#include "..."`` from the source's folder (recursively) launches as
``::asc::detail::chevron_launch_mix<c, v>(...)``, which starts blockDim groups
of c + v instances (``include/asc/kernel/mix.h``).

This module uses only the standard library and also runs as a script (the
CMake functions call it without importing pyasc)::

    python asc_translate.py IN.asc OUT.cpp

Errors (an unterminated ``<<<`` and the like) raise :class:`TranslateError`
naming the file and line; as a script, exit status 2.
"""

from __future__ import annotations

import os
import re
import sys

__all__ = ["translate", "translate_file", "TranslateError", "find_launches", "mix_kernels", "PROLOGUE_HEADER"]

PROLOGUE_HEADER = "asc/kernel/debug_launch.h"

_IDENT = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")


class TranslateError(ValueError):
    """A launch the translator cannot read; the message names file and line."""


def _code_mask(src):
    """A bytearray: 1 where ``src`` is code, 0 inside comments and literals."""
    n = len(src)
    mask = bytearray(b"\x01") * n
    i = 0
    while i < n:
        c = src[i]
        if c == "/" and i + 1 < n and src[i + 1] == "/":
            j = i + 2
            # A backslash-newline continues a // comment.
            while j < n and src[j] != "\n":
                if src[j] == "\\" and j + 1 < n and src[j + 1] == "\n":
                    j += 2
                    continue
                j += 1
            mask[i:j] = bytes(j - i)
            i = j
        elif c == "/" and i + 1 < n and src[i + 1] == "*":
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            mask[i:j] = bytes(j - i)
            i = j
        elif c == '"':
            # Raw string: R"delim( ... )delim" (prefixes u8R, LR, uR, UR too).
            k = i - 1
            if k >= 0 and src[k] == "R" and (k == 0 or not (src[k - 1].isalnum() or src[k - 1] == "_")
                                             or src[k - 1] in "8LuU"):
                m = re.match(r'"([^()\\\s]{0,16})\(', src[i:])
                if m:
                    end = src.find(")" + m.group(1) + '"', i + m.end())
                    j = n if end < 0 else end + len(m.group(1)) + 2
                    mask[i:j] = bytes(j - i)
                    i = j
                    continue
            j = i + 1
            while j < n and src[j] != '"' and src[j] != "\n":
                j += 2 if src[j] == "\\" else 1
            j = min(j + 1, n)
            mask[i:j] = bytes(j - i)
            i = j
        elif c == "'":
            # A digit separator (1'000'000) follows a pp-number; a character
            # literal follows anything else (u8'a', L'a' included).
            k = i - 1
            while k >= 0 and (src[k].isalnum() or src[k] in "_.'"):
                k -= 1
            if k + 1 < i and src[k + 1].isdigit():
                i += 1
                continue
            j = i + 1
            while j < n and src[j] != "'" and src[j] != "\n":
                j += 2 if src[j] == "\\" else 1
            j = min(j + 1, n)
            mask[i:j] = bytes(j - i)
            i = j
        else:
            i += 1
    return mask


def _line_of(src, pos):
    return src.count("\n", 0, pos) + 1


_OPEN = {"(": ")", "[": "]", "{": "}"}
_CLOSE = {")": "(", "]": "[", "}": "{"}


def _kernel_start(src, mask, end):
    """Start of the kernel expression that ends right before ``end`` (the ``<<<``)."""
    i = end - 1
    while i >= 0 and src[i].isspace():
        i -= 1
    if i < 0:
        return None
    if src[i] == ">":  # template arguments: walk back to the matching '<'
        # Angle brackets count only outside parentheses: k<T, (N > 2)>.
        angle = 0
        paren = 0
        while i >= 0:
            if mask[i]:
                ch = src[i]
                if ch in ")]}":
                    paren += 1
                elif ch in "([{":
                    paren -= 1
                elif paren == 0 and ch == ">":
                    angle += 1
                elif paren == 0 and ch == "<":
                    angle -= 1
                    if angle == 0:
                        break
            i -= 1
        if i < 0 or src[i] != "<":
            return None
        i -= 1
        while i >= 0 and src[i].isspace():
            i -= 1
    # identifier, possibly qualified: a::b::c (and a leading ::)
    start = None
    while True:
        j = i
        while j >= 0 and (src[j].isalnum() or src[j] in "_$"):
            j -= 1
        if j == i:
            if start is None or (i >= 0 and src[i] == ">"):
                return None  # no name, or a templated scope (ns<T>::k): not supported
            return start  # a leading "::"
        if src[j + 1].isdigit():
            return None
        start = j + 1
        k = j
        while k >= 0 and src[k].isspace():
            k -= 1
        if k >= 1 and src[k] == ":" and src[k - 1] == ":":
            start = k - 1
            k -= 2
            while k >= 0 and src[k].isspace():
                k -= 1
            i = k
            continue
        return start


def _match_close(src, mask, i, path):
    """Index just past the bracket that closes the one at ``i``."""
    stack = [src[i]]
    j = i + 1
    n = len(src)
    while j < n:
        if mask[j]:
            ch = src[j]
            if ch in _OPEN:
                stack.append(ch)
            elif ch in _CLOSE:
                if not stack or stack[-1] != _CLOSE[ch]:
                    raise TranslateError(f"{path}:{_line_of(src, j)}: unbalanced '{ch}' in a kernel launch")
                stack.pop()
                if not stack:
                    return j + 1
        j += 1
    raise TranslateError(f"{path}:{_line_of(src, i)}: unterminated '{src[i]}' in a kernel launch")


def _c_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def find_launches(src, path="<source>"):
    """The launches in ``src``: a list of dicts with the kernel text, the
    configuration text, the offsets (``start``, ``open`` = index of ``<<<``,
    ``close`` = index of ``>>>``) and the line of the ``<<<``."""
    mask = _code_mask(src)
    out = []
    pos = 0
    while True:
        i = src.find("<<<", pos)
        if i < 0:
            return out
        if not all(mask[i:i + 3]):
            pos = i + 1
            continue
        line = _line_of(src, i)
        start = _kernel_start(src, mask, i)
        if start is None:
            raise TranslateError(f"{path}:{line}: '<<<' does not follow a kernel name")
        # The configuration ends at the first '>>>' outside brackets.
        j = i + 3
        depth = 0
        close = -1
        while j < len(src):
            if mask[j]:
                ch = src[j]
                if ch in _OPEN:
                    depth += 1
                elif ch in _CLOSE:
                    depth -= 1
                    if depth < 0:
                        break
                elif ch == ">" and depth == 0 and src.startswith(">>>", j) and all(mask[j:j + 3]):
                    close = j
                    break
                elif ch == ";" and depth == 0:
                    break
            j += 1
        if close < 0:
            raise TranslateError(f"{path}:{line}: '<<<' without a matching '>>>' in the launch of "
                                 f"'{src[start:i].strip()}'")
        k = close + 3
        while k < len(src) and (src[k].isspace() or not mask[k]):
            k += 1
        if k >= len(src) or src[k] != "(":
            raise TranslateError(f"{path}:{_line_of(src, close)}: '>>>' must be followed by the kernel "
                                 f"arguments in parentheses")
        args_end = _match_close(src, mask, k, path)
        config = src[i + 3:close]
        if not config.strip():
            raise TranslateError(f"{path}:{line}: empty launch configuration '<<<>>>' (need blockDim, l2ctrl, "
                                 f"stream)")
        out.append({"start": start, "open": i, "close": close, "args_open": k, "args_end": args_end,
                    "kernel": src[start:i].rstrip(), "config": config, "line": line})
        pos = args_end


_MIX = re.compile(r"\b__mix__\s*\(\s*(\d+)\s*,\s*(\d+)\s*\)")
_LOCAL_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def mix_kernels(src, path=None, _seen=None):
    """``{name: (c, v)}`` of the functions declared ``__mix__(c, v)`` in
    ``src`` and in the headers it includes with ``#include "..."`` that exist
    in the folder of ``path`` (recursively, each file once)."""
    mask = _code_mask(src)
    out = {}
    for m in _MIX.finditer(src):
        if not all(mask[m.start():m.end()]):
            continue
        # The declared name: the last identifier before the parameter list.
        j = m.end()
        while j < len(src) and not (mask[j] and src[j] in "(;{}"):
            j += 1
        if j >= len(src) or src[j] != "(":
            continue
        names = _IDENT.findall(src[m.end():j])
        if names:
            out[names[-1]] = (int(m.group(1)), int(m.group(2)))
    if path and os.path.isfile(path):
        seen = _seen if _seen is not None else {os.path.realpath(path)}
        base = os.path.dirname(os.path.abspath(path))
        for inc in _LOCAL_INCLUDE.findall(src):
            h = os.path.join(base, inc)
            real = os.path.realpath(h)
            if real in seen or not os.path.isfile(h):
                continue
            seen.add(real)
            try:
                with open(h, encoding="utf-8", errors="surrogateescape") as f:
                    text = f.read()
            except OSError:
                continue
            for k, v in mix_kernels(text, h, seen).items():
                out.setdefault(k, v)
    return out


def _base_name(kernel):
    """``ns::k<T, 4>`` -> ``k``."""
    head = kernel.split("<", 1)[0]
    names = _IDENT.findall(head)
    return names[-1] if names else ""


def translate(src, path="<source>", prologue=True):
    """Returns ``src`` with every launch rewritten (see the module docstring)."""
    launches = find_launches(src, path)
    mix = mix_kernels(src, path) if launches else {}
    parts = []
    last = 0
    for l in launches:
        kernel = l["kernel"]
        name = " ".join(kernel.split())  # one line, for the string literal
        parts.append(src[last:l["start"]])
        ratio = mix.get(_base_name(kernel))
        if ratio:
            parts.append(f"::asc::detail::chevron_launch_mix<{ratio[0]}, {ratio[1]}>({_c_string(name)}, {kernel}, ")
        else:
            parts.append(f"::asc::detail::chevron_launch({_c_string(name)}, {kernel}, ")
        # Whitespace between the name and '<<<' may hold newlines: keep them.
        parts.append(src[l["start"] + len(kernel):l["open"]])
        parts.append(src[l["open"] + 3:l["close"]])
        parts.append(")")
        last = l["close"] + 3
    parts.append(src[last:])
    body = "".join(parts)
    if not prologue:
        return body
    return f'#include "{PROLOGUE_HEADER}"\n#line 1 {_c_string(path)}\n' + body


def translate_file(in_path, out_path, line_path=None):
    """Translates ``in_path`` into ``out_path``; ``#line`` names ``line_path``
    (default: ``in_path`` as given). Rewrites ``out_path`` only when its text
    changes (build tools then see no new timestamp)."""
    with open(in_path, encoding="utf-8", errors="surrogateescape", newline="") as f:
        src = f.read()
    text = translate(src, line_path if line_path is not None else in_path)
    try:
        with open(out_path, encoding="utf-8", errors="surrogateescape", newline="") as f:
            if f.read() == text:
                return
    except OSError:
        pass
    d = os.path.dirname(out_path)
    if d:
        os.makedirs(d, exist_ok=True)
    with open(out_path, "w", encoding="utf-8", errors="surrogateescape", newline="") as f:
        f.write(text)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2:
        print("usage: asc_translate.py IN.asc OUT.cpp", file=sys.stderr)
        return 2
    try:
        translate_file(argv[0], argv[1])
    except (TranslateError, OSError) as e:
        print(f"asc_translate: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
