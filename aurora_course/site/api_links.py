"""Links from JAX API names on the website to their pages in JAX's API reference.

The table of names, ``jax_api.txt`` (written by ``scripts/jax-api-index`` from JAX's documentation
sources), maps each public name to its page under :data:`JAX_DOCS`, so the site links without
fetching anything (it builds and works offline). Names are read as a notebook binds them: ``jnp``,
``lax`` and ``P`` as the course imports them, plus every ``import jax...`` / ``from jax... import``
in the notebook's own code cells.

- :func:`link_markdown`: inline code in prose that is an API name (`` `jax.device_put` ``,
  `` `jnp.sum(x)` ``) becomes a link;
- :func:`link_code_html`: dotted names in the highlighted code of a built page become links.
"""

from __future__ import annotations

import ast
import functools
import html
import re
from collections.abc import Mapping
from pathlib import Path

from ..course_notebook import NotebookNode, parse_python

#: Where JAX's documentation lives; the table's pages are relative to it.
JAX_DOCS = "https://docs.jax.dev/en/latest/"
_TABLE = Path(__file__).with_name("jax_api.txt")

#: How the course's notebooks spell JAX's modules and the names they re-export under ``jax``.
DEFAULT_ALIASES: Mapping[str, str] = {
    "jax": "jax",
    "jnp": "jax.numpy",
    "lax": "jax.lax",
    "P": "jax.sharding.PartitionSpec",
}
#: Re-exports the reference documents under another name.
_SAME_AS = {
    "jax.P": "jax.sharding.PartitionSpec",
    "jax.NamedSharding": "jax.sharding.NamedSharding",
    "jax.sharding.PartitionSpec": "jax.sharding.PartitionSpec",
}

_DOTTED = re.compile(r"^(?P<name>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)(?P<call>\(.*\))?$", re.S)


@functools.lru_cache(maxsize=1)
def api_pages() -> Mapping[str, str]:
    """``{full name: page relative to JAX_DOCS}`` from ``jax_api.txt``."""
    pages = {}
    for line in _TABLE.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            name, _, page = line.partition("\t")
            pages[name] = page
    return pages


def notebook_aliases(nb: NotebookNode) -> dict[str, str]:
    """The names ``nb``'s code binds to JAX modules and objects (``{"NamedSharding":
    "jax.sharding.NamedSharding", "jnp": "jax.numpy", ...}``), on top of :data:`DEFAULT_ALIASES`."""
    aliases = dict(DEFAULT_ALIASES)
    for cell in nb.cells:
        if cell.get("cell_type") != "code":
            continue
        tree = parse_python(str(cell.get("source", "")))
        for node in ast.walk(tree) if tree is not None else ():
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.name.split(".")[0] == "jax":
                        aliases[a.asname or a.name.split(".")[0]] = a.name if a.asname else "jax"
            elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "jax":
                for a in node.names:
                    if a.name != "*":
                        aliases[a.asname or a.name] = f"{node.module}.{a.name}"
    return aliases


def api_url(name: str, aliases: Mapping[str, str] = DEFAULT_ALIASES) -> str | None:
    """The reference page of ``name`` as written in a notebook (``jnp.sum``, ``P``,
    ``jax.Array.sharding``), or None when it is not a documented JAX name."""
    head, _, rest = name.partition(".")
    if head not in aliases:
        return None
    full = aliases[head] + (f".{rest}" if rest else "")
    full = _SAME_AS.get(full, full)
    pages = api_pages()
    if full in pages:
        return JAX_DOCS + pages[full]
    owner, _, member = full.rpartition(".")
    owner = _SAME_AS.get(owner, owner)
    if owner not in pages or not member or member.startswith("_"):
        return None
    page = pages[owner]
    is_module = "#" not in page and not page.startswith("_autosummary/")
    if is_module or owner.rpartition(".")[2][:1].isupper():  # a class's or a module's member
        return JAX_DOCS + page.split("#")[0] + f"#{owner}.{member}"
    return None


_CODE_SPAN = re.compile(r"(?<![`\[])`(?P<code>[^`\n]+)`(?![`\]])")


def link_markdown(source: str, aliases: Mapping[str, str] = DEFAULT_ALIASES) -> str:
    """``source`` (markdown) with each inline code span that is a JAX name, or a call of one,
    turned into a link to its page. Headings, fenced code and existing links are left alone."""
    out, fenced = [], False
    for line in source.split("\n"):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
        if fenced or line.lstrip().startswith(("#", "```", "~~~", "<")):
            out.append(line)
            continue

        def link(found: re.Match[str]) -> str:
            dotted = _DOTTED.match(found["code"].strip())
            url = api_url(dotted["name"], aliases) if dotted else None
            return f"[{found[0]}]({url})" if url else found[0]

        out.append(_CODE_SPAN.sub(link, line))
    return "\n".join(out)


#: A dotted name as Pygments highlights Python: name spans joined by ``.`` operator spans, or one
#: namespace span (``import jax.numpy``).
_HIGHLIGHTED = re.compile(
    r'<span class="(?:n|nn|nc|nf)">[A-Za-z_][\w.]*</span>'
    r'(?:<span class="o">\.</span><span class="n[a-z]?">[A-Za-z_]\w*</span>)*'
)
_SPAN_TEXT = re.compile(r"<[^>]+>")


def link_code_html(page: str, aliases: Mapping[str, str] = DEFAULT_ALIASES) -> str:
    """A built page with every JAX name in its highlighted code wrapped in a link to its page
    (the longest documented prefix of a chain: ``jax.device_put`` in ``jax.device_put(x).block``)."""

    def link(found: re.Match[str]) -> str:
        chain = found[0]
        parts = re.findall(r'<span class="[^"]+">[^<]*</span>', chain)
        names = [_SPAN_TEXT.sub("", p) for p in parts]
        for end in range(len(names), 0, -1):
            dotted = "".join(names[:end])
            url = api_url(dotted, aliases) if not dotted.endswith(".") else None
            if url:
                head = "".join(parts[:end])
                return (
                    f'<a class="aurora-api reference external" href="{html.escape(url)}" '
                    f'title="{html.escape(dotted)} in the JAX reference">{head}</a>'
                    + "".join(parts[end:])
                )
        return chain

    return _HIGHLIGHTED.sub(link, page)


def link_pages(site_dir: Path, aliases_by_page: Mapping[str, Mapping[str, str]]) -> int:
    """Link JAX names in the code of each built page ``site_dir/<page>.html``; returns how many
    links were added."""
    added = 0
    for page, aliases in aliases_by_page.items():
        path = site_dir / f"{page}.html"
        if not path.exists():
            continue
        text = path.read_text(encoding="utf-8")
        linked = link_code_html(text, aliases)
        added += linked.count('class="aurora-api') - text.count('class="aurora-api')
        if linked != text:
            path.write_text(linked, encoding="utf-8")
    return added
