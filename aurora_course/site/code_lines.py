"""Long code lines on the website wrap with a hanging indent instead of scrolling sideways.

CSS alone wraps a long line back to the left edge, where it reads as a new, unindented statement.
After Sphinx, :func:`hang_wrapped_lines` puts each line of highlighted code in a block of its own
(``<span class="aurora-line" style="--i:N">``, ``N`` its indentation), which ``aurora.css`` indents
by ``N + 4`` characters on every row but the first. The copy button joins the lines' text with
newlines, so what is copied is the code as written.
"""

from __future__ import annotations

import re

_PRE = re.compile(r'(<div class="highlight"><pre>)(.*?)(</pre></div>)', re.S)
_TOKEN = re.compile(r"(</?(?:span|a)\b[^>]*>)|([^<]+)")
LINE_CLASS = "aurora-line"


def _lines(body: str) -> list[str]:
    """The highlighted code ``body`` cut at its newlines, each line's open tags closed at its end
    and opened again on the next line (Pygments' spans hold no other tags)."""
    lines: list[str] = []
    stack: list[str] = []
    current = ""
    for tag, text in _TOKEN.findall(body):
        if tag:
            current += tag
            if tag.startswith("</"):
                stack.pop()
            else:
                stack.append(tag)
            continue
        parts = text.split("\n")
        for k, part in enumerate(parts):
            if k:
                closing = "".join(f"</{t[1:].split()[0].rstrip('>')}>" for t in reversed(stack))
                lines.append(current + closing)
                current = "".join(stack)
            current += part
    lines.append(current)
    if re.fullmatch(r"(?:<[^>]+>)*", lines[-1]):  # the newline that ends the block
        lines.pop()
    return lines


def _indent(line: str) -> int:
    text = re.sub(r"<[^>]+>", "", line)
    return len(text) - len(text.lstrip(" "))


def hang_wrapped_lines(page: str) -> str:
    """``page`` (HTML) with every line of each highlighted code block in a block of its own."""

    def wrap(found: re.Match[str]) -> str:
        lines = _lines(found[2])
        body = "".join(
            f'<span class="{LINE_CLASS}" style="--i:{_indent(line)}">{line}</span>'
            for line in lines
        )
        return found[1] + body + found[3]

    return _PRE.sub(wrap, page)
