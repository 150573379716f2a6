"""The course website and JupyterLab in a real browser (headless Chromium): ``make test-site``.

``make test-site`` executes two notebooks with ``aurora run`` (which builds the site from them)
and points ``$AURORA_SITE_BUILD`` at that build folder; without it these tests skip. Where
Chromium cannot be found they skip too, unless ``$AURORA_REQUIRE_BROWSER`` is set (CI sets it).
"""

from __future__ import annotations

import json
import os
import re
import secrets
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

import nbformat
import pytest

from aurora_course.course import STUDENT_FOLDER, colab_url
from aurora_course.handout import student_texts
from aurora_course.site.api_links import JAX_DOCS
from aurora_course.site.tags import CHECK_TOGGLE, SOLUTION_TOGGLE

from .site_browser import (
    chromium,
    console_errors,
    find_chromium,
    foreign_requests,
    need_browser,
    serve,
)

pytestmark = pytest.mark.slow  # a browser, a web server, JupyterLab: make test-site

ROOT = Path(__file__).resolve().parents[1]
SHOTS = ROOT / "build" / "site-shots"
IMAGE_MIMES = ("image/png", "image/jpeg", "image/svg+xml", "image/gif")
WAIT_S = 30


def _need_browser() -> None:
    need_browser(
        find_chromium(),
        "headless Chromium is not installed (Debian: apt-get install chromium chromium-driver; "
        "scripts/ensure-chromium does it where it may)",
    )


@pytest.fixture(scope="module")
def build() -> Path:
    folder = os.environ.get("AURORA_SITE_BUILD")
    if not folder:
        pytest.skip("set AURORA_SITE_BUILD to a build folder of `aurora run` (make test-site does)")
    path = Path(folder)
    assert (path / "site" / "index.html").exists(), f"no site in {path}: did `aurora run` build it?"
    return path


@pytest.fixture(scope="module")
def summary(build: Path) -> dict[str, dict]:
    return {r["notebook"]: r for r in json.loads((build / "summary.json").read_text())}


@pytest.fixture(scope="module")
def browser():
    _need_browser()
    with chromium() as driver:
        yield driver


@pytest.fixture(scope="module")
def site(build: Path):
    with serve(build / "site") as base:
        yield base


def _wait(condition, timeout: float = WAIT_S, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.2)


def _open(driver, url: str) -> None:
    driver.get(url)
    _wait(
        lambda: driver.execute_script("return document.readyState") == "complete",
        what=f"{url} to load",
    )


def _pages(build: Path) -> list[Path]:
    site = build / "site"
    return sorted(
        p
        for p in site.rglob("*.html")
        if not any(part.startswith("_") for part in p.relative_to(site).parts)
    )


def _target_exists(site_dir: Path, page_url: str, href: str, base: str) -> bool:
    url = urljoin(page_url, href)
    if not url.startswith(base):
        return True  # external: Colab, GitHub; not fetched (offline)
    path = site_dir / unquote(urlsplit(url).path[len(urlsplit(base).path) :])
    return (path / "index.html").exists() if path.is_dir() else path.exists()


def test_the_site_built_without_warnings(build):
    warnings = (build / "site-src-work" / "warnings.txt").read_text()
    assert not warnings.strip(), f"Sphinx warned while `aurora run` built the site:\n{warnings}"


def test_every_page_loads_without_errors_and_resolves_links_and_images(browser, site, build):
    pages = _pages(build)
    assert len(pages) >= 4, pages  # landing, a notebook, the machine page, search
    console_errors(browser)  # start from an empty log
    problems = []
    for page in pages:
        rel = page.relative_to(build / "site").as_posix()
        url = site + rel
        _open(browser, url)
        problems += [f"{rel}: console: {m}" for m in console_errors(browser)]
        problems += [f"{rel}: fetched from outside: {u}" for u in foreign_requests(browser, site)]
        images = browser.execute_script(
            "return [...document.images].map(i => [i.getAttribute('src'), i.complete && i.naturalWidth > 0])"
        )
        problems += [f"{rel}: image {src} did not load" for src, ok in images if not ok]
        hrefs = browser.execute_script(
            "return [...document.querySelectorAll('a[href]')].map(a => a.getAttribute('href'))"
        )
        for href in hrefs:
            if href.startswith(("#", "mailto:", "javascript:")):
                continue
            if not _target_exists(build / "site", url, href, site):
                problems.append(f"{rel}: broken link {href}")
    assert not problems, "\n".join(problems)


def _notebook_pages(summary: dict[str, dict], build: Path) -> list[str]:
    return [name for name in summary if (build / "site" / f"{name}.html").exists()]


def test_every_notebook_has_a_page_with_its_figures_and_run_facts(browser, site, build, summary):
    names = _notebook_pages(summary, build)
    assert names == list(summary), f"pages missing for {set(summary) - set(names)}"
    total = 0
    for name in names:
        nb = nbformat.read(build / "notebooks" / f"{name}.ipynb", as_version=4)
        figures = sum(
            1
            for cell in nb.cells
            for out in cell.get("outputs", [])
            if any(m in out.get("data", {}) for m in IMAGE_MIMES)
        )
        _open(browser, f"{site}{name}.html")
        shown = browser.execute_script(
            "return [...document.querySelectorAll('.cell_output img')]"
            ".filter(i => i.complete && i.naturalWidth > 0).length"
        )
        assert shown == figures, f"{name}: {figures} figures in the notebook, {shown} on the page"
        total += figures
        facts = browser.find_element("css selector", ".aurora-ran-on").text
        run = summary[name]
        assert f"JAX {run['jax_version']}" in facts, facts
        assert f"{run['device_count']} device(s)" in facts, facts
        assert f"{run['seconds']:.1f} s" in facts, facts
        _check_learner_links(browser, site, name)
        sidebar = browser.execute_script(
            "return [...document.querySelectorAll('.bd-sidenav a')].map(a => a.href.split('#')[0])"
        )
        assert [h for h in sidebar if any(h.endswith(f"/{n}.html") for n in names)] == [
            f"{site}{n}.html" for n in names
        ], f"{name}: the sidebar does not list every notebook in course order: {sidebar}"
        assert browser.find_elements("css selector", ".prev-next-area a"), f"{name}: no prev/next"
        title = browser.title
        assert not title.startswith(name), f"{name}: the page title is the file name: {title}"
    assert total > 0, "no notebook in this build draws a figure: choose SITE_ONLY with one"


def _check_learner_links(browser, site: str, name: str) -> None:
    """What a learner clicks to work on a page: every Colab link (the banner's, the theme's launch
    button) opens the student copy, except the one labelled as the solutions for self-study; the
    download serves the student copy, byte for byte as `aurora student` writes it."""
    links = browser.execute_script(
        "return [...document.querySelectorAll('a[href]')].map(a => [a.href,"
        " (a.closest('p, li, div') || a).textContent])"
    )
    colab = [(h, text) for h, text in links if h.startswith("https://colab.research.google.com/")]
    student = colab_url(f"{name}.ipynb", folder=STUDENT_FOLDER)
    assert student in [h for h, _ in colab], f"{name}: no Open in Colab link to the student copy"
    for href, text in colab:
        if href != student:
            assert href == colab_url(f"{name}.ipynb"), f"{name}: Colab link to {href}"
            assert "With the solutions" in text, f"{name}: an unlabelled solutions link: {text!r}"
    downloads = [h for h, _ in links if "_downloads" in h and h.endswith(".ipynb")]
    assert downloads, f"{name}: no download link"
    wanted = student_texts([ROOT / "notebooks" / f"{name}.ipynb"])[f"{name}.ipynb"]
    for href in downloads:
        assert href.endswith(f"/{name}.ipynb"), href
        with urllib.request.urlopen(href, timeout=10) as response:
            served = response.read().decode("utf-8")
        assert served == wanted, f"{name}: the download is not the student copy"


def test_what_a_learner_reads_and_clicks_on_each_page(browser, site, build, summary):
    """Each figure has alt text (not a file name); JAX names in code and prose link to JAX's
    reference; every code cell has a copy button that copies; nothing scrolls sideways at the
    default width; solutions and check cells sit behind toggles that say which they are."""
    names = _notebook_pages(summary, build)
    prose_links = 0
    for name in names:
        _open(browser, f"{site}{name}.html")
        alts = browser.execute_script(
            "return [...document.querySelectorAll('.cell_output img')].map(i => i.alt)"
        )
        for alt in alts:
            assert len(alt.split()) >= 4, f"{name}: a figure's alt text is {alt!r}"
            assert not re.search(r"[0-9a-f]{16}|\.(png|svg)", alt), f"{name}: alt {alt!r}"
        code_links = browser.execute_script(
            "return [...document.querySelectorAll('.cell_input a.aurora-api')].map(a => a.href)"
        )
        assert code_links, f"{name}: no JAX name in its code links to JAX's reference"
        assert all(h.startswith(JAX_DOCS) for h in code_links), code_links
        prose_links += browser.execute_script(
            "return [...document.querySelectorAll('.bd-article a[href]')]"
            f".filter(a => a.href.startsWith('{JAX_DOCS}') && !a.closest('.cell_input')).length"
        )
        blocks = browser.execute_script(
            "return document.querySelectorAll('.cell_input div.highlight').length"
        )
        buttons = browser.find_elements(
            "css selector", ".cell_input div.highlight button.aurora-copy"
        )
        assert blocks and len(buttons) == blocks, (
            f"{name}: {len(buttons)} copy buttons, {blocks} cells"
        )
        # The first code cell's button copies its source as written (the clipboard is stubbed
        # to see what the page hands it; a headless browser has no clipboard to read back).
        first = buttons[0]
        browser.execute_script(
            "window.__copied = null; Object.defineProperty(navigator, 'clipboard', {value:"
            " {writeText: t => { window.__copied = t; return Promise.resolve(); }},"
            " configurable: true}); arguments[0].scrollIntoView({block: 'center'});",
            first,
        )
        first.click()
        _wait(lambda b=first: b.text == "Copied", what="the copy button to say Copied")
        source = next(
            c.source
            for c in nbformat.read(build / "site-src" / f"{name}.ipynb", 4).cells
            if c.cell_type == "code"
        )
        copied = browser.execute_script("return window.__copied")
        assert copied == source.rstrip("\n"), f"{name}: copied {copied[:200]!r}"
        wide = browser.execute_script(
            "const d = document.documentElement;"
            "const over = [...document.querySelectorAll('pre, table, img, .cell_output')]"
            "  .filter(e => e.offsetParent !== null && e.scrollWidth > e.clientWidth + 1)"
            "  .map(e => e.tagName + ': ' + e.textContent.slice(0, 60));"
            "return [d.scrollWidth > d.clientWidth ? ['page', d.scrollWidth, d.clientWidth] : null,"
            "  over]"
        )
        assert wide == [None, []], f"{name}: scrolls sideways at the default width: {wide}"
        toggles = browser.execute_script(
            "return [...document.querySelectorAll('.cell.tag_solution, .cell.tag_check')].map(c =>"
            " [c.classList.contains('tag_solution'), c.querySelector('summary .collapsed').textContent,"
            "  c.querySelector('.cell_input pre').textContent])"
        )
        for is_solution, label, code in toggles:
            assert label.strip() == (SOLUTION_TOGGLE if is_solution else CHECK_TOGGLE)[0], label
            assert "@title" not in code.splitlines()[0], f"{name}: a solution starts {code[:60]!r}"
        assert any(not s for s, _, _ in toggles), f"{name}: no collapsed check cell"
    assert prose_links > 0, "no API name in any page's prose links to JAX's reference"
    browser.set_window_size(420, 900)  # a phone: the page still fits its width
    try:
        for name in names:
            _open(browser, f"{site}{name}.html")
            widths = browser.execute_script(
                "return [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
            )
            assert widths[0] <= widths[1], f"{name}: scrolls sideways at 420 px: {widths}"
    finally:
        browser.set_window_size(1280, 900)
    _open(browser, site + "index.html")
    landing = browser.find_element("css selector", ".bd-article").text
    for words in (f"{STUDENT_FOLDER}/", "make learn", SOLUTION_TOGGLE[0], CHECK_TOGGLE[0]):
        assert words in landing, f"the landing page does not say {words!r}"


def _search(browser, site: str, term: str) -> list[str]:
    _open(browser, f"{site}search.html?q={term}")
    _wait(
        lambda: browser.execute_script(
            "const s = document.querySelector('#search-results .search-summary, #search-results p');"
            "return s && s.textContent.trim().length > 0 && !/^Searching/.test(s.textContent.trim())"
        ),
        what=f"search results for {term}",
    )
    return browser.execute_script(
        "return [...document.querySelectorAll('#search-results li a')].map(a => a.href)"
    )


def test_search_finds_the_page_of_a_term_from_it(browser, site, build, summary):
    names = _notebook_pages(summary, build)
    terms = {}
    if "07_shard_map" in names:
        terms["psum_scatter"] = "07_shard_map"
    for name in names:  # plus, for every page, a word only its own title has
        words = re.findall(r"[A-Za-z_]{5,}", (build / "notebooks" / f"{name}.ipynb").read_text())
        title_words = re.findall(r"[A-Za-z_]{5,}", summary[name]["title"] or "")
        terms.setdefault((title_words or words)[-1].lower(), name)
    for term, name in terms.items():
        hits = _search(browser, site, term)
        assert any(f"/{name}.html" in h for h in hits), f"searching {term!r} gave {hits}"
    assert not _search(browser, site, "zqxjvwkpfh"), "a nonsense word found pages"


def test_solution_toggles_start_collapsed_and_open_on_click(browser, site, build, summary):
    checked = 0
    for name in _notebook_pages(summary, build):
        _open(browser, f"{site}{name}.html")
        cells = browser.find_elements("css selector", ".cell.tag_solution")
        for cell in cells:
            details = cell.find_element("css selector", "details")
            code = cell.find_element("css selector", ".cell_input")
            assert details.get_attribute("open") is None, f"{name}: a solution starts open"
            assert not code.is_displayed(), f"{name}: a solution's code is visible"
            browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", details)
            details.find_element("css selector", "summary").click()
            _wait(lambda d=details: d.get_attribute("open") is not None, what="toggle to open")
            _wait(code.is_displayed, timeout=5, what=f"{name}: the solution to show after a click")
            checked += 1
    assert checked > 0, "no solution cells on any page: the toggle was not checked"


def test_screenshots(browser, site, build, summary):
    SHOTS.mkdir(parents=True, exist_ok=True)
    names = _notebook_pages(summary, build)
    _open(browser, site + "index.html")
    assert browser.save_screenshot(str(SHOTS / "landing.png"))
    _open(browser, f"{site}{names[-1]}.html")
    banner = browser.find_element("css selector", ".aurora-ran-on")
    browser.execute_script("arguments[0].scrollIntoView({block: 'start'})", banner)
    assert browser.save_screenshot(str(SHOTS / "notebook.png"))
    shots = ["landing.png", "notebook.png"]
    for name in names:  # the first page with a figure: a sharding picture where 06 or 07 ran
        _open(browser, f"{site}{name}.html")
        figures = browser.find_elements("css selector", ".cell_output img")
        if figures:
            browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", figures[-1])
            assert browser.save_screenshot(str(SHOTS / "picture.png"))
            shots.append("picture.png")
            break
    for shot in shots:
        assert (SHOTS / shot).stat().st_size > 10_000, f"{shot} looks empty"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_make_lab_opens_and_renders_a_notebook(build, tmp_path):
    """``make lab`` (the Makefile's own command) serves a notebook that Chromium renders, lists
    only the notebooks (not their MyST twins), starts them on the course's kernel, and shows no
    news pop-up.

    Asks for ``build`` only so that it runs with the other browser tests, under make test-site.
    It has a browser of its own: leaving a JupyterLab page logs a console error ("Blocked attempt
    to show a 'beforeunload' confirmation panel") that the shared browser would pass on to
    whichever test opens the next page (pytest-randomly shuffles the order).
    """
    _need_browser()
    with chromium() as browser:
        _render_in_lab(browser, tmp_path)


PANELS = [
    "import aurora_helpers as ah\nah.setup_notebook(8)",
    "explorer = ah.ShardingExplorerPanel()\nexplorer",
    "planner = ah.PlanPanel(devices=64)\nplanner",
]


def test_the_interactive_panels_render_and_respond_in_lab(build, tmp_path):
    """Issue 44: the sharding explorer and the run planner, run in JupyterLab on the course's
    kernel, draw their controls and outputs, and the planner redraws when a learner types a
    device count (its table's caption follows). Screenshots: ``build/site-shots/panels*.png``."""
    _need_browser()
    folder = tmp_path / "panels"
    folder.mkdir()
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in PANELS])
    nb.metadata["kernelspec"] = {
        "name": "aurora",
        "display_name": "Project Aurora (JAX)",
        "language": "python",
    }
    nbformat.write(nb, folder / "panels.ipynb")
    with chromium() as browser:
        browser.set_window_size(1280, 2200)

        def look(base: str, token: str) -> None:
            _open(browser, f"{base}lab/tree/panels.ipynb?token={token}")
            _wait(
                lambda: (
                    browser.execute_script(
                        "return document.querySelectorAll('.jp-Notebook .jp-CodeCell').length"
                    )
                    == len(PANELS)
                ),
                timeout=90,
                what="JupyterLab to render the notebook",
            )
            time.sleep(3)  # the kernel starting
            browser.find_element("css selector", ".jp-Notebook .jp-CodeCell .cm-content").click()
            from selenium.webdriver.common.action_chains import ActionChains
            from selenium.webdriver.common.keys import Keys

            for _ in PANELS:
                ActionChains(browser).key_down(Keys.SHIFT).send_keys(Keys.ENTER).key_up(
                    Keys.SHIFT
                ).perform()
                time.sleep(0.5)

            def outputs() -> list[str]:
                return browser.execute_script(
                    "return [...document.querySelectorAll('.jp-OutputArea-output .widget-html-content')]"
                    ".map(e => e.textContent)"
                )

            _wait(
                lambda: any("Memory per device" in t for t in outputs()),
                timeout=120,
                what="the planner's outputs",
            )
            sliders = browser.find_elements("css selector", ".jp-OutputArea-output .widget-slider")
            menus = browser.find_elements("css selector", ".jp-OutputArea-output select")
            assert len(sliders) >= 5 and len(menus) >= 5, (len(sliders), len(menus))
            explorer_text = browser.execute_script(
                "return document.querySelectorAll('.jp-CodeCell')[1].textContent"
            )
            assert "device" in explorer_text, explorer_text[:500]
            SHOTS.mkdir(parents=True, exist_ok=True)
            assert browser.save_screenshot(str(SHOTS / "panels.png"))
            caption = next(t for t in outputs() if "layouts fit" in t)
            boxes = browser.find_elements(
                "css selector", ".jp-OutputArea-output .widget-inline-hbox input[type=number]"
            )
            devices = next(
                b for b in boxes if b.find_element("xpath", "..").text.strip().startswith("devices")
            )
            devices.clear()
            devices.send_keys("256", Keys.ENTER)
            _wait(
                lambda: caption not in outputs(),
                timeout=60,
                what="the planner to redraw for 256 devices",
            )
            assert browser.save_screenshot(str(SHOTS / "panels-256.png"))

        _lab(tmp_path, folder, look)


def _lab(tmp_path: Path, folder: Path | None, then) -> None:
    """Start ``make lab`` (on ``folder``, else the course's notebooks), call ``then(base, token)``,
    and stop it however that ends."""
    port, token = _free_port(), secrets.token_hex(16)
    args = f"--no-browser --port={port} --IdentityProvider.token={token} --ServerApp.ip=127.0.0.1"
    env = {
        **os.environ,
        "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
        "JUPYTERLAB_WORKSPACES_DIR": str(tmp_path / "workspaces"),
    }
    where = [f"LAB_DIR={folder}"] if folder is not None else []
    lab = subprocess.Popen(
        ["make", "--no-print-directory", "lab", f"LAB_ARGS={args}", *where],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=open(tmp_path / "lab.log", "w"),  # noqa: SIM115
        start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}/"
    try:

        def up() -> bool:
            assert lab.poll() is None, (tmp_path / "lab.log").read_text()[-2000:]
            try:
                with urllib.request.urlopen(f"{base}api/status?token={token}", timeout=2):
                    return True
            except OSError:
                return False

        _wait(up, timeout=90, what="JupyterLab to start")
        then(base, token)
    finally:
        _stop(lab)


def _render_in_lab(browser, tmp_path: Path) -> None:
    def look(base: str, token: str) -> None:
        _open(browser, f"{base}lab/tree/00_welcome.ipynb?token={token}")
        _wait(
            lambda: browser.execute_script(
                "const h = document.querySelector('.jp-Notebook .jp-RenderedMarkdown h1');"
                "return h && h.textContent.includes('Welcome')"
            ),
            timeout=90,
            what="JupyterLab to render 00_welcome.ipynb",
        )
        cells = browser.find_elements("css selector", ".jp-Notebook .jp-Cell")
        assert len(cells) >= 3, len(cells)  # JupyterLab renders only the cells in view
        # One audience at a time: the file browser lists the notebooks, not their MyST twins.
        listed = _wait(
            lambda: browser.execute_script(
                "return [...document.querySelectorAll('.jp-DirListing-itemText')]"
                ".map(e => e.textContent.trim())"
            ),
            what="the file browser's list",
        )
        notebooks = sorted(p.name for p in (ROOT / "notebooks").glob("[0-9A-Z][0-9]_*.ipynb"))
        assert sorted(n for n in listed if n.endswith(".ipynb")) == notebooks, listed
        assert not [n for n in listed if n.endswith(".md")], f"MyST twins listed: {listed}"
        # The notebook starts on the course's kernel, not a generic "Python 3 (ipykernel)".
        _wait(
            lambda: (
                "Project Aurora (JAX)"
                in browser.execute_script(
                    "return [...document.querySelectorAll('.jp-Toolbar-kernelName')]"
                    ".map(e => e.textContent).join(' ')"
                )
            ),
            what="the notebook's kernel to be the course's",
        )
        # No news pop-up asking for consent (checked after JupyterLab had time to show it).
        time.sleep(3)
        toasts = browser.execute_script(
            "return [...document.querySelectorAll('.Toastify__toast, .jp-toast-message')]"
            ".map(e => e.textContent)"
        )
        assert not [t for t in toasts if "news" in t.lower()], toasts
        SHOTS.mkdir(parents=True, exist_ok=True)
        assert browser.save_screenshot(str(SHOTS / "lab.png"))

    _lab(tmp_path, None, look)


def _stop(process: subprocess.Popen) -> None:
    """Stop the process group this test started (make and the JupyterLab server under it)."""
    if process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
