"""A real JupyterHub on 127.0.0.1 for the classroom test (tests/test_hub.py), and its learners.

The hub runs from ``.venv-hub`` (``make test-hub`` builds it: ci/hub.txt's JupyterHub, JupyterLab
and nbgitpuller, configurable-http-proxy from npm), an environment *without* the course, as on a
hub whose image has its own Python; the course reaches learners as the kernel ``aurora kernel
install`` registers from this test's Python, exactly as docs/jupyterhub.md tells an admin. Users
come from ``DummyAuthenticator`` (one password), servers from ``SimpleLocalProcessSpawner`` (local
processes, each learner's home a folder of the test's own). A :class:`Learner` does over HTTP what
JupyterLab does in a browser: logs in through the hub's API, starts a server, follows the
nbgitpuller link, opens a notebook's session on the kernel the notebook names, runs its cells over
the kernel's websocket and saves it through the contents API.

Everything lives in one temporary folder; :meth:`Hub.close` stops every server and the hub, then
checks that no process it saw is left, that the ports are closed, and removes the folder.
"""

from __future__ import annotations

import asyncio
import contextlib
import html.parser
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

from aurora_course.peak_memory import tree_rss

ROOT = Path(__file__).resolve().parents[1]
HUB_VENV = Path(os.environ.get("AURORA_HUB_VENV", ROOT / ".venv-hub"))
PASSWORD = "room-password"


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


def descendants(pid: int) -> set[int]:
    """``pid`` and every process below it, now (from ``/proc``)."""
    found, stack = set(), [pid]
    while stack:
        p = stack.pop()
        if p in found:
            continue
        found.add(p)
        for task in Path(f"/proc/{p}/task").glob("*"):
            with contextlib.suppress(OSError, ValueError):
                stack.extend(int(c) for c in (task / "children").read_text().split())
    return {p for p in found if Path(f"/proc/{p}").exists()}


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


class HubError(RuntimeError):
    pass


def _config(folder: Path, ports: dict[str, int], kernel_path: Path, admin_token: str) -> str:
    proxy = HUB_VENV / "node_modules" / ".bin" / "configurable-http-proxy"
    args = ["--allow-root"] if os.getuid() == 0 else []
    return f"""# Written by tests/hub_classroom.py: a classroom hub on 127.0.0.1 only.
c = get_config()  # noqa: F821
c.JupyterHub.bind_url = "http://127.0.0.1:{ports["public"]}"
c.JupyterHub.hub_bind_url = "http://127.0.0.1:{ports["hub"]}"
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{ports["proxy_api"]}"
c.ConfigurableHTTPProxy.command = [{str(proxy)!r}]
c.ConfigurableHTTPProxy.pid_file = {str(folder / "proxy.pid")!r}
c.JupyterHub.db_url = "sqlite:///{folder / "hub.sqlite"}"
c.JupyterHub.cookie_secret_file = {str(folder / "cookie_secret")!r}
c.JupyterHub.pid_file = {str(folder / "hub.pid")!r}
c.JupyterHub.cleanup_servers = True
c.JupyterHub.cleanup_proxy = True
c.JupyterHub.authenticator_class = "dummy"
c.DummyAuthenticator.password = {PASSWORD!r}
c.Authenticator.allow_all = True
c.JupyterHub.services = [
    {{"name": "instructor", "api_token": {admin_token!r}}},
]
c.JupyterHub.load_roles = [
    {{"name": "instructor", "scopes": ["admin:users", "admin:servers", "admin:server_state",
      "tokens", "read:hub"], "services": ["instructor"]}},
]
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = {str(folder / "home" / "{username}")!r}
c.Spawner.cmd = [{str(HUB_VENV / "bin" / "jupyterhub-singleuser")!r}]
c.Spawner.args = {args!r}
c.Spawner.ip = "127.0.0.1"
c.Spawner.default_url = "/lab"
c.Spawner.start_timeout = 120
c.Spawner.http_timeout = 120
# The course's kernel, registered with `aurora kernel install --prefix {kernel_path.parent.parent}`
# (docs/jupyterhub.md): a folder every single-user server searches.
c.Spawner.environment = {{"JUPYTER_PATH": {str(kernel_path)!r}}}
"""


@dataclass
class Hub:
    """A JupyterHub in ``folder``, started by :meth:`start`, stopped and cleaned by :meth:`close`."""

    folder: Path
    ports: dict[str, int] = field(default_factory=dict)
    admin_token: str = field(default_factory=lambda: secrets.token_hex(16))
    process: subprocess.Popen[bytes] | None = None
    seen: set[int] = field(default_factory=set)  # every process of the hub's tree seen so far
    server_ports: set[int] = field(default_factory=set)
    closed: bool = False

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.ports['public']}"

    def start(self, kernel_share: Path) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        self.ports = {k: free_port() for k in ("public", "hub", "proxy_api")}
        config = self.folder / "jupyterhub_config.py"
        config.write_text(_config(self.folder, self.ports, kernel_share, self.admin_token))
        env = {k: v for k, v in os.environ.items() if not k.startswith(("AURORA_", "JUPYTER"))}
        env["PATH"] = f"{HUB_VENV / 'bin'}{os.pathsep}{env.get('PATH', '')}"
        env["CONFIGPROXY_AUTH_TOKEN"] = secrets.token_hex(16)
        log = (self.folder / "hub.log").open("wb")
        self.process = subprocess.Popen(
            [str(HUB_VENV / "bin" / "jupyterhub"), "-f", str(config)],
            cwd=self.folder,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise HubError(f"the hub exited: {self.log_tail()}")
            with contextlib.suppress(OSError, HubError):
                self.api("GET", "/hub/api/")
                return
            time.sleep(0.5)
        raise HubError(f"the hub did not answer within 120 s: {self.log_tail()}")

    def log_tail(self, lines: int = 30) -> str:
        path = self.folder / "hub.log"
        return (
            "\n".join(path.read_text("utf-8", "replace").splitlines()[-lines:])
            if path.exists()
            else ""
        )

    def api(self, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
        return request(self.url + path, method, body, token or self.admin_token)

    def watch(self) -> set[int]:
        """The hub's processes now (the proxy, every server and kernel); remembered for close."""
        if self.process is None:
            return set()
        now = descendants(self.process.pid)
        self.seen |= now
        return now

    def rss(self) -> int:
        return tree_rss(self.process.pid)[0] if self.process else 0

    def close(self) -> list[str]:
        """Stop every server and the hub; return what was left behind (nothing, when it went well).
        Whatever this hub started and is still running is killed either way; the folder (the
        learners' homes) is removed."""
        self.closed = True
        problems: list[str] = []
        if self.process is not None and self.process.poll() is None:
            self.watch()
            with contextlib.suppress(Exception):
                for user in self.api("GET", "/hub/api/users"):
                    if user.get("servers"):
                        self.api("DELETE", f"/hub/api/users/{user['name']}/server")
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(60)
            except subprocess.TimeoutExpired:
                problems.append("the hub did not stop within 60 s of SIGTERM")
                self.process.kill()
                self.process.wait(10)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and [p for p in self.seen if alive(p)]:
            time.sleep(0.5)
        left = sorted(p for p in self.seen if alive(p))
        if left:
            problems.append(f"processes left running: {left}")
            for pid in left:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        still = [p for p in (*self.ports.values(), *self.server_ports) if port_open(p)]
        if still:
            problems.append(f"ports still open: {still}")
        shutil.rmtree(self.folder, ignore_errors=True)
        if self.folder.exists():
            problems.append(f"{self.folder} could not be removed")
        return problems


def request(
    url: str, method: str = "GET", body: Any = None, token: str | None = None, *, raw: bool = False
) -> Any:
    """One HTTP request (redirects followed, ``Authorization: token`` kept); JSON in and out."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method)
    if token:
        req.add_header("Authorization", f"token {token}")
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=300) as resp:
            payload = resp.read()
            if raw:
                return resp.geturl(), payload
    except urllib.error.HTTPError as err:
        raise HubError(f"{method} {url}: {err.code} {err.read()[:300]!r}") from err
    return json.loads(payload) if payload.strip() else None


class _BodyData(html.parser.HTMLParser):
    """The ``data-*`` attributes of a page's ``<body>`` (nbgitpuller's status page keeps its
    parameters there for its script)."""

    def __init__(self) -> None:
        super().__init__()
        self.data: dict[str, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "body":
            self.data = {k[5:]: v or "" for k, v in attrs if k.startswith("data-")}


@dataclass
class Learner:
    """One learner, doing over HTTP what JupyterLab does for them in a browser."""

    hub: Hub
    name: str
    token: str = ""
    _session: str = field(default_factory=lambda: uuid.uuid4().hex)
    browser: urllib.request.OpenerDirector = field(
        default_factory=lambda: urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
    )

    def login(self) -> None:
        """Log in with the room's password twice, as a learner's browser and tools do: through the
        hub's API (a token, for the REST and websocket calls) and through its login form (the
        cookies that the hub's pages, such as an nbgitpuller link, need)."""
        answer = request(
            f"{self.hub.url}/hub/api/users/{self.name}/tokens",
            "POST",
            {"auth": {"username": self.name, "password": PASSWORD}, "note": "classroom test"},
        )
        self.token = answer["token"]
        import re

        with self.browser.open(f"{self.hub.url}/hub/login", timeout=60) as page:
            xsrf = re.search(rb'name="_xsrf" value="([^"]+)"', page.read())
        form = {"username": self.name, "password": PASSWORD}
        if xsrf:
            form["_xsrf"] = xsrf.group(1).decode()
        with self.browser.open(f"{self.hub.url}/hub/login", urlencode(form).encode(), 60) as page:
            if "/hub/login" in page.geturl():
                raise HubError(f"{self.name} could not log in through the form")

    @property
    def home(self) -> Path:
        return self.hub.folder / "home" / self.name

    @property
    def server(self) -> str:
        return f"{self.hub.url}/user/{self.name}"

    def model(self) -> dict[str, Any]:
        return dict(self.hub.api("GET", f"/hub/api/users/{self.name}", token=self.token))

    def start_server(self, timeout_s: float = 180) -> None:
        with contextlib.suppress(HubError):  # 202 (pending) or 201; 400 when already running
            self.hub.api("POST", f"/hub/api/users/{self.name}/server", token=self.token)
        self._wait(lambda m: bool(m.get("servers", {}).get("", {}).get("ready")), timeout_s)
        state = self.hub.api("GET", f"/hub/api/users/{self.name}")["servers"][""]
        self.hub.server_ports.add(urlsplit(state["url"]).port or 0)
        self.hub.server_ports.discard(0)

    def stop_server(self, timeout_s: float = 120) -> None:
        self.hub.api("DELETE", f"/hub/api/users/{self.name}/server", token=self.token)
        self._wait(lambda m: "" not in m.get("servers", {}), timeout_s)

    def server_pid(self) -> int | None:
        server = self.hub.api("GET", f"/hub/api/users/{self.name}").get("servers", {}).get("")
        return (server or {}).get("state", {}).get("pid")

    def _wait(self, done: Any, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if done(self.model()):
                return
            time.sleep(0.5)
        raise HubError(
            f"{self.name}'s server: no change within {timeout_s:g} s\n{self.hub.log_tail()}"
        )

    def pull(self, link: str) -> str:
        """Follow an nbgitpuller link as a browser does (the hub's user-redirect to this learner's
        server, nbgitpuller's page, the event stream its script opens); return the path the page
        sends the learner to (``lab/tree/...``)."""
        with self.browser.open(link, timeout=300) as response:
            final, page = response.geturl(), response.read()
        body = _BodyData()
        body.feed(page.decode())
        data = {k: urllib.parse.unquote(v) for k, v in body.data.items()}
        if "repo" not in data:
            raise HubError(f"{final} is not nbgitpuller's page: {page[:200]!r}")
        params = {"repo": data["repo"], "targetpath": data["targetpath"]}
        for key in ("branch", "depth", "backup"):
            if key in data:
                params[key] = data[key]
        api = f"{self.server}/git-pull/api?{urlencode(params, quote_via=quote)}"
        with self.browser.open(api, timeout=300) as response:
            stream = response.read()
        events = [
            json.loads(line[5:])
            for line in stream.decode().splitlines()
            if line.startswith("data:")
        ]
        phases = [e.get("phase") for e in events]
        if phases[-1:] != ["finished"]:
            errors = [e.get("message") for e in events if e.get("phase") == "error"]
            raise HubError(f"nbgitpuller did not finish for {self.name}: {errors or phases}")
        return data["path"]

    def contents(self, path: str) -> dict[str, Any]:
        return dict(request(f"{self.server}/api/contents/{quote(path)}", token=self.token))

    def save(self, path: str, nb: dict[str, Any]) -> None:
        body = {"type": "notebook", "format": "json", "content": nb}
        request(f"{self.server}/api/contents/{quote(path)}", "PUT", body, self.token)

    def open_session(self, path: str, kernel_name: str) -> dict[str, Any]:
        """What JupyterLab does when a notebook opens: a session on the kernel it names."""
        body = {
            "path": path,
            "name": Path(path).name,
            "type": "notebook",
            "kernel": {"name": kernel_name},
        }
        return dict(request(f"{self.server}/api/sessions", "POST", body, self.token))

    def close_session(self, session: dict[str, Any]) -> None:
        request(f"{self.server}/api/sessions/{session['id']}", "DELETE", token=self.token)

    def kernelspecs(self) -> dict[str, Any]:
        return dict(request(f"{self.server}/api/kernelspecs", token=self.token))

    def kernel_info(self, kernel_id: str) -> dict[str, Any]:
        """The kernel's ``kernel_info_reply`` content: what JupyterLab reads (and writes into
        the notebook's ``language_info``) once the kernel started."""
        return asyncio.run(self._kernel_info(kernel_id))

    async def _kernel_info(self, kernel_id: str) -> dict[str, Any]:
        ws = await self._connect(kernel_id)
        try:
            msg_id = uuid.uuid4().hex
            await ws.write_message(
                json.dumps(self._message(msg_id, "kernel_info_request", {}, "shell"))
            )
            while True:
                raw = await asyncio.wait_for(ws.read_message(), 120)
                if raw is None:
                    raise HubError("the kernel's websocket closed")
                msg = json.loads(raw)
                if (
                    msg.get("parent_header", {}).get("msg_id") == msg_id
                    and msg["header"]["msg_type"] == "kernel_info_reply"
                ):
                    return dict(msg["content"])
        finally:
            ws.close()

    def _message(
        self, msg_id: str, kind: str, content: dict[str, Any], channel: str
    ) -> dict[str, Any]:
        header = {
            "msg_id": msg_id,
            "msg_type": kind,
            "session": self._session,
            "username": self.name,
            "version": "5.3",
            "date": "",
        }
        return {
            "header": header,
            "parent_header": {},
            "metadata": {},
            "content": content,
            "channel": channel,
            "buffers": [],
        }

    async def _connect(self, kernel_id: str) -> Any:
        from tornado.httpclient import HTTPRequest
        from tornado.websocket import websocket_connect

        url = (
            f"ws://{urlsplit(self.server).netloc}/user/{self.name}/api/kernels/{kernel_id}"
            f"/channels?session_id={self._session}"
        )
        return await websocket_connect(
            HTTPRequest(url, headers={"Authorization": f"token {self.token}"}),
            max_message_size=1 << 28,
        )

    def run_cells(
        self, kernel_id: str, sources: list[str], cell_timeout_s: float = 600
    ) -> list[list[dict[str, Any]]]:
        """Execute each source in the kernel over its websocket, in order; each one's outputs as
        nbformat outputs (display updates and ``clear_output`` applied as JupyterLab does)."""
        return asyncio.run(self._run_cells(kernel_id, sources, cell_timeout_s))

    async def _run_cells(
        self, kernel_id: str, sources: list[str], cell_timeout_s: float
    ) -> list[list[dict[str, Any]]]:
        from nbformat.v4 import output_from_msg

        ws = await self._connect(kernel_id)
        results: list[list[dict[str, Any]]] = []
        try:
            for source in sources:
                msg_id = uuid.uuid4().hex
                content = {
                    "code": source,
                    "silent": False,
                    "store_history": True,
                    "user_expressions": {},
                    "allow_stdin": False,
                    "stop_on_error": True,
                }
                await ws.write_message(
                    json.dumps(self._message(msg_id, "execute_request", content, "shell"))
                )
                outputs: list[dict[str, Any]] = []
                clear_next = False
                replied = idle = False
                deadline = time.monotonic() + cell_timeout_s
                while not (replied and idle):
                    left = deadline - time.monotonic()
                    if left <= 0:
                        raise HubError(f"a cell ran past {cell_timeout_s:g} s: {source[:80]!r}")
                    raw = await asyncio.wait_for(ws.read_message(), left)
                    if raw is None:
                        raise HubError("the kernel's websocket closed")
                    msg = json.loads(raw)
                    if msg.get("parent_header", {}).get("msg_id") != msg_id:
                        continue
                    kind = msg["header"]["msg_type"]
                    if msg["channel"] == "shell" and kind == "execute_reply":
                        replied = True
                    elif kind == "status":
                        idle = msg["content"]["execution_state"] == "idle"
                    elif kind == "clear_output":
                        if msg["content"].get("wait"):
                            clear_next = True
                        else:
                            outputs = []
                    elif kind in ("stream", "display_data", "execute_result", "error"):
                        if clear_next:
                            outputs, clear_next = [], False
                        outputs.append(dict(output_from_msg(msg)))
                results.append(outputs)
        finally:
            ws.close()
        return results


def sample_memory(
    hub: Hub, learners: list[Learner], stop: threading.Event, peaks: dict[str, int]
) -> None:
    """Every 0.5 s until ``stop``: each learner's server tree (server, kernels and what they
    start) and the hub's whole tree; the largest of each into ``peaks`` (bytes)."""
    while not stop.is_set():
        hub.watch()
        peaks["hub total"] = max(peaks.get("hub total", 0), hub.rss())
        for learner in learners:
            with contextlib.suppress(Exception):
                pid = learner.server_pid()
                if pid:
                    peaks[learner.name] = max(peaks.get(learner.name, 0), tree_rss(pid)[0])
        stop.wait(0.5)


def statuses(outputs: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """``(label, status)`` of every exercise check in a cell's outputs."""
    import re

    found = []
    for out in outputs:
        text = out.get("text") or out.get("data", {}).get("text/plain", "")
        text = "".join(text) if isinstance(text, list) else str(text)
        found += re.findall(r"Exercise ([0-9A-Z]+\.\d+): (solved|not solved yet|wrong)", text)
    return found


@contextlib.contextmanager
def running_hub(folder: Path, kernel_share: Path) -> Iterator[Hub]:
    """A started hub; closed on the way out if the caller did not close it (and check what
    :meth:`Hub.close` returns) itself."""
    hub = Hub(folder)
    try:
        hub.start(kernel_share)
        yield hub
    finally:
        if not hub.closed:
            hub.close()
