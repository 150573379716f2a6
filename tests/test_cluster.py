"""The local cluster launcher: success, crash, hang, interrupt, cleanup, ports, bad inputs."""

from __future__ import annotations

import hashlib
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path

import pytest

import aurora_helpers as ah
import aurora_helpers.cluster
from aurora_helpers.cluster import launcher as cluster_module
from aurora_helpers.cluster.magic import cluster_cell
from aurora_helpers.cluster.outcomes import ClusterError, ClusterRun

from . import cluster_programs as programs
from .conftest import ROOT

MARKER = "AURORA_CLUSTER_TEST_MARKER"


def _marked_processes(marker: str) -> list[int]:
    """Every live process whose environment carries ``marker`` (workers and their children)."""
    needle = f"{MARKER}={marker}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if needle in (entry / "environ").read_bytes().split(b"\0"):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def _gone(pid: int) -> bool:
    """True when our child ``pid`` has ended and been reaped (no process, no zombie)."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True  # reaped already (its number may belong to someone else by now)
    return False  # still running, or a zombie nobody had reaped (waitpid just did)


@pytest.fixture
def marker():
    value = uuid.uuid4().hex
    yield value
    assert _marked_processes(value) == [], "worker processes were left behind"


pytestmark = pytest.mark.slow


def test_success_returns_results_and_output_by_rank(marker):
    run = ah.run_cluster(
        programs.rank_info,
        args=("hi",),
        processes=3,
        devices_per_process=2,
        env={MARKER: marker},
    )
    assert [r["rank"] for r in run.results] == [0, 1, 2]
    assert all(r["size"] == 3 and r["local"] == 2 and r["global"] == 6 for r in run.results)
    assert all(r["local_subset"] and r["initialized"] for r in run.results)
    assert [run.output(rank).strip() for rank in range(3)] == [f"hi from {r}" for r in range(3)]
    text = str(run)
    assert "[rank 2] hi from 2" in text and "3 process(es) x 2 CPU device(s)" in text


def test_source_text_and_script_programs(tmp_path, marker):
    code = "import jax\nprint('rank', jax.process_index())\nresult = jax.process_count() * 10\n"
    with ah.LocalCluster(2, 1, env={MARKER: marker}) as cluster:
        run = cluster.run(code)
        assert run.results == (20, 20)
        assert run.stdout == ("rank 0\n", "rank 1\n")
        script = tmp_path / "program.py"
        script.write_text(code)
        assert cluster.run(script).results == (20, 20)
        assert cluster.starts == 1  # both runs used the same processes


def test_function_defined_in_main_is_sent_as_source(tmp_path, marker):
    # A notebook's functions live in __main__; the workers cannot import them, so their source
    # travels. runpy gives a function with __module__ == "__main__" and a real source file.
    import runpy

    path = tmp_path / "notebook_like.py"
    path.write_text(
        textwrap.dedent(
            """
            def scaled_rank(k):
                import jax
                return jax.process_index() * k
            """
        )
    )
    function = runpy.run_path(str(path), run_name="__main__")["scaled_rank"]
    assert function.__module__ == "__main__"
    assert ah.run_cluster(function, args=(5,), env={MARKER: marker}).results == (0, 5)


@pytest.mark.timing
def test_psum_across_four_processes_is_fast(marker):
    """Start 4 processes, one psum across all their devices, shut down: well under 10 s."""
    began = time.monotonic()
    run = ah.run_cluster(
        programs.psum_of_ranks, processes=4, devices_per_process=2, env={MARKER: marker}
    )
    seconds = time.monotonic() - began
    assert run.results == (20.0,) * 4  # 2 devices x (1 + 2 + 3 + 4)
    assert seconds < 30, f"4-process psum cluster took {seconds:.1f} s"  # generous: shared CI


@pytest.mark.timing
def test_a_rank_that_raises_stops_the_others(marker):
    cluster = ah.LocalCluster(3, 1, env={MARKER: marker})
    cluster.start()
    pids = cluster.pids
    began = time.monotonic()
    with pytest.raises(ah.ClusterProcessError) as info:
        cluster.run(programs.raise_on, args=(1, "bad shard"))
    assert time.monotonic() - began < 30  # the others slept for 120 s: they were stopped
    err = info.value
    assert err.rank == 1 and err.exception_type == "ValueError" and err.exit_code is not None
    assert "raise ValueError(message)" in err.remote_traceback
    assert "rank 1 of 3 raised ValueError: bad shard" in str(err)
    assert "Traceback from rank 1" in str(err) and "were stopped" in str(err)
    assert not cluster.running and cluster.pids == ()
    assert all(_gone(pid) for pid in pids)


def test_each_rank_gets_its_own_arguments_and_nobody_elses(marker):
    secrets = [f"secret-{uuid.uuid4().hex}-{rank}" for rank in range(3)]
    run = ah.run_cluster(
        programs.what_this_rank_sees,
        args=("shared",),
        rank_args=[(s,) for s in secrets],
        processes=3,
        devices_per_process=1,
        env={MARKER: marker},
    )
    for rank, seen in enumerate(run.results):
        assert seen["args"] == hashlib.sha256(repr(("shared", secrets[rank])).encode()).hexdigest()
        everything = repr(seen["files"]) + repr(seen["frames"])
        others = [s for r, s in enumerate(secrets) if r != rank]
        assert not [s for s in others if s in everything], f"rank {rank} could read another's"
    assert run.died == {}


def test_rank_args_are_checked_before_anything_starts():
    cluster = ah.LocalCluster(2, 1)
    with pytest.raises(ValueError, match="3 entries; this cluster has 2 ranks"):
        cluster.run(programs.rank_info, rank_args=[(), (), ()])
    with pytest.raises(TypeError, match="cannot be sent"):
        cluster.run(programs.rank_info, rank_args=[(lambda: 0,), ()])
    with pytest.raises(TypeError, match="rank_args are for function programs"):
        cluster.run("result = 1", rank_args=[(), ()])
    assert not cluster.running


def test_a_remote_exception_keeps_its_whole_message(marker):
    message = "line one\n" + "x" * 500
    with pytest.raises(ah.ClusterProcessError) as info:
        ah.run_cluster(programs.raise_on, args=(1, message), processes=2, env={MARKER: marker})
    assert info.value.exception_message == message
    with pytest.raises(ah.ClusterProcessError) as died:
        ah.run_cluster(programs.die_on, args=(1, 3), processes=2, env={MARKER: marker})
    assert died.value.exception_message is None


def test_a_recoverable_cluster_goes_on_without_a_dead_rank(marker):
    cluster = ah.LocalCluster(3, 1, recoverable=True, env={MARKER: marker})
    with cluster:
        run = cluster.run(programs.survive_a_death, args=(2,), timeout=60)
        assert run.died == {2: -signal.SIGKILL} and run.results[2] is None
        assert run.results[0] == run.results[1] == {"live": 2, "sum": 3.0}
        assert "[rank 2] died (exit code -9 (SIGKILL))" in str(run)
        with pytest.raises(ClusterError, match="died; close it"):
            cluster.run(programs.rank_info)
    assert cluster.exit_codes == (0, 0, -signal.SIGKILL)
    with pytest.raises(ValueError, match="one or the other"):
        ah.LocalCluster(2, 1, recoverable=True, imitate="slurm")


def test_a_rank_that_dies_is_reported_with_its_exit_code(marker):
    with pytest.raises(ah.ClusterProcessError, match="rank 0 of 2 exited with code 3") as info:
        ah.run_cluster(programs.die_on, args=(0, 3), processes=2, env={MARKER: marker})
    assert info.value.exception_type is None and info.value.exit_code == 3


@pytest.mark.timing
def test_a_hang_is_killed_after_the_timeout(marker):
    cluster = ah.LocalCluster(2, 1, env={MARKER: marker})
    cluster.start()
    pids = cluster.pids
    began = time.monotonic()
    with pytest.raises(ah.ClusterTimeout) as info:
        cluster.run(programs.hang_on, args=(1,), timeout=3)
    assert 3 <= time.monotonic() - began < 20
    err = info.value
    assert isinstance(err, TimeoutError) and err.timeout == 3
    assert err.waiting == (1,) and err.finished == (0,)
    assert "[rank 1] rank 1 started" in str(err)  # what the hung rank printed before hanging
    assert all(_gone(pid) for pid in pids)


def test_a_failed_cluster_restarts_on_the_next_run(marker):
    with ah.LocalCluster(2, 1, env={MARKER: marker}) as cluster:
        first = cluster.pids
        assert cluster.run(programs.pid_and_sleep, args=(0,)).results == first
        with pytest.raises(ah.ClusterProcessError):
            cluster.run("raise RuntimeError('boom')")
        second = cluster.run(programs.pid_and_sleep, args=(0,)).results
        assert cluster.starts == 2 and set(second).isdisjoint(first)
    assert all(_gone(pid) for pid in (*first, *second))


def test_close_and_context_exit_leave_no_process(marker):
    with ah.LocalCluster(2, 1, env={MARKER: marker}) as cluster:
        pids = cluster.pids
        assert len(pids) == 2 and _marked_processes(marker) and cluster.exit_codes == ()
    assert not cluster.running and all(_gone(pid) for pid in pids)
    assert cluster.exit_codes == (0, 0)  # both left through jax.distributed.shutdown()
    cluster.close()  # closing twice is harmless


def test_failure_exit_codes_say_killed(marker):
    cluster = ah.LocalCluster(2, 1, env={MARKER: marker})
    with pytest.raises(ah.ClusterProcessError):
        cluster.run(programs.raise_on, args=(0,))
    assert cluster.exit_codes[1] == -signal.SIGKILL  # rank 1 was sleeping: it was stopped


def test_a_forgotten_cluster_is_killed_when_collected(marker):
    import gc

    cluster = ah.LocalCluster(2, 1, env={MARKER: marker}).start()
    pids = cluster.pids
    del cluster
    gc.collect()
    assert all(_gone(pid) for pid in pids)


def test_workers_end_when_the_launcher_is_killed(marker):
    """Even a kernel killed outright (no cleanup code runs) leaves no worker behind."""
    script = textwrap.dedent(
        f"""
        import signal
        # A process started in the background by a non-interactive shell inherits SIGINT as
        # ignored (and Python then installs no KeyboardInterrupt handler): restore the default,
        # as a kernel or terminal has it.
        signal.signal(signal.SIGINT, signal.default_int_handler)
        import aurora_helpers as ah
        cluster = ah.LocalCluster(2, 1, env={{"{MARKER}": "{marker}"}}).start()
        print(*cluster.pids, flush=True)
        print(cluster._workers.run_dir, flush=True)
        import time
        time.sleep(60)
        """
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    pids = [int(p) for p in proc.stdout.readline().split()]
    run_dir = Path(proc.stdout.readline().strip())
    assert len(pids) == 2 and run_dir.is_dir()
    proc.kill()
    proc.wait()
    deadline = time.monotonic() + 10
    while (_marked_processes(marker) or run_dir.exists()) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _marked_processes(marker) == []
    assert not run_dir.exists()  # the workers removed what the launcher could not


def test_keyboard_interrupt_stops_every_worker(marker, tmp_path):
    """SIGINT to the launching process (the kernel's "interrupt") leaves no worker behind."""
    started = tmp_path / "started"
    program = f"import time\nopen({str(started)!r}, 'a').close()\ntime.sleep(60)\n"
    script = textwrap.dedent(
        f"""
        import signal
        # A process started in the background by a non-interactive shell inherits SIGINT as
        # ignored (and Python then installs no KeyboardInterrupt handler): restore the default,
        # as a kernel or terminal has it.
        signal.signal(signal.SIGINT, signal.default_int_handler)
        import aurora_helpers as ah
        cluster = ah.LocalCluster(2, 1, env={{"{MARKER}": "{marker}"}})
        try:
            cluster.start()
            print(*cluster.pids, flush=True)
            cluster.run({program!r})
        except KeyboardInterrupt:
            print("interrupted", cluster.running, flush=True)
        """
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        pids = [int(p) for p in proc.stdout.readline().split()]
        assert len(pids) == 2, proc.stderr.read() if proc.stderr else ""
        deadline = time.monotonic() + 60
        while not started.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert started.exists(), "the run never started"
        proc.send_signal(signal.SIGINT)  # the run is under way: interrupt it
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
        proc.wait()
    assert "interrupted False" in out, err
    for pid in pids:
        assert not (Path("/proc") / str(pid)).exists()


def test_a_taken_port_is_avoided(monkeypatch, marker):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        taken = busy.getsockname()[1]
        offered = []
        real = cluster_module._free_port

        def first_the_taken_port() -> int:
            offered.append(taken if not offered else real())
            return offered[-1]

        monkeypatch.setattr(cluster_module, "_free_port", first_the_taken_port)
        with ah.LocalCluster(2, 1, env={MARKER: marker}) as cluster:
            assert len(offered) == 2 and cluster.port == offered[1] != taken
            assert cluster.run(programs.rank_info).results[1]["size"] == 2


def _listening_addresses(pids: tuple[int, ...]) -> set[str]:
    """Local addresses of the TCP sockets in LISTEN state that ``pids`` hold (from /proc)."""
    inodes = set()
    for pid in pids:
        for fd in (Path("/proc") / str(pid) / "fd").iterdir():
            try:
                target = os.readlink(fd)
            except OSError:
                continue
            if target.startswith("socket:["):
                inodes.add(target[len("socket:[") : -1])
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for row in Path(table).read_text().splitlines()[1:]:
            fields = row.split()
            if fields[3] == "0A" and fields[9] in inodes:  # 0A = LISTEN
                found.add(fields[1].rsplit(":", 1)[0])
    return found


def test_a_taken_port_is_avoided_when_the_program_initializes(monkeypatch, marker):
    """With imitate="slurm" the program starts the coordinator, on the first run."""
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        taken = busy.getsockname()[1]
        offered = []
        real = cluster_module._free_port

        def first_the_taken_port() -> int:
            offered.append(taken if not offered else real())
            return offered[-1]

        monkeypatch.setattr(cluster_module, "_free_port", first_the_taken_port)
        code = "import jax\njax.distributed.initialize()\nresult = jax.process_count()"
        run = ah.run_cluster(code, processes=2, imitate="slurm", env={MARKER: marker})
        assert run.results == (2, 2) and len(offered) == 2


def test_coordinator_and_collectives_listen_on_loopback_only(marker):
    with ah.LocalCluster(2, 2, env={MARKER: marker}) as cluster:
        assert cluster.run(programs.psum_of_ranks).results == (6.0, 6.0)  # Gloo is connected
        addresses = _listening_addresses(cluster.pids)
    # 127.0.0.1, as IPv4 or as an IPv4-mapped IPv6 address; never 0.0.0.0, :: or another host.
    assert addresses and addresses <= {"0100007F", "0000000000000000FFFF00000100007F"}


def test_slurm_imitation_uses_jax_cluster_detection(marker):
    code = textwrap.dedent(
        """
        import os, jax
        before = jax.distributed.is_initialized()
        jax.distributed.initialize()  # no arguments: JAX reads SLURM_* as under srun
        result = (before, os.environ["SLURM_PROCID"], jax.process_index(), jax.process_count())
        """
    )
    run = ah.run_cluster(code, processes=2, imitate="slurm", env={MARKER: marker})
    assert run.results == ((False, "0", 0, 2), (False, "1", 1, 2))


def test_a_stubbed_exercise_is_not_solved_yet(marker):
    with ah.LocalCluster(2, 1, env={MARKER: marker}) as cluster:
        with pytest.raises(NotImplementedError) as info:
            cluster.run(programs.not_implemented)
        assert isinstance(info.value, ah.ClusterProcessError)
        result = ah.check(
            "t.1", lambda: cluster.run(programs.not_implemented).results, expected=(1, 1)
        )
        assert result.status == "not solved yet"


def test_programs_cannot_read_the_command_channel_or_shadowing_modules(marker):
    code = textwrap.dedent(
        """
        import sys
        here = sys.stdin.read()  # the launcher's commands must not show up here
        try:
            import machine_report  # aurora_helpers/machine_report.py must not be importable as a top-level name
            shadowed = True
        except ImportError:
            shadowed = False
        result = (here, shadowed)
        """
    )
    with ah.LocalCluster(2, 1, env={MARKER: marker}) as cluster:
        assert cluster.run(code).results == (("", False), ("", False))
        assert cluster.run("result = 1").results == (1, 1)  # commands still arrive


def test_a_global_array_result_names_the_fix(marker):
    with pytest.raises(ah.ClusterProcessError, match=r"not fully addressable.*process_allgather"):
        ah.run_cluster(programs.global_array, env={MARKER: marker})


def test_name_errors_get_a_hint(marker):
    with pytest.raises(ah.ClusterProcessError, match="import what it uses inside"):
        ah.run_cluster("print(undefined_name)", env={MARKER: marker})


def test_cell_magic_runs_and_stores(marker):
    namespace: dict = {}
    with ah.LocalCluster(2, 1, env={MARKER: marker}) as cluster:
        namespace["c"] = cluster
        run = cluster_cell("--on c --out r", "import jax\nresult = jax.process_index()", namespace)
        assert run.results == (0, 1) and namespace["r"] is run
    failed_ns: dict = {}
    with pytest.raises(ah.ClusterProcessError) as info:
        cluster_cell("-n 2 -d 1 --out failed", "raise KeyError('k')", failed_ns)
    assert failed_ns["failed"] is info.value and info.value.exception_type == "KeyError"
    with pytest.raises(ValueError, match="not a valid Python name"):
        cluster_cell("--out 1x", "pass", namespace)
    with pytest.raises(ValueError, match="--on runs on an existing one"):
        cluster_cell("--on c -n 3", "pass", namespace)
    with pytest.raises(ValueError, match="no LocalCluster named 'nope'"):
        cluster_cell("--on nope", "pass", namespace)
    with pytest.raises(ValueError, match="unrecognized arguments"):
        cluster_cell("--bogus", "pass", namespace)
    with pytest.raises(ValueError, match="invalid int value"):
        cluster_cell("-n two", "pass", namespace)


def test_load_cluster_magic_registers_a_cell_magic():
    class FakeShell:
        def __init__(self):
            self.user_ns: dict = {}

        def register_magic_function(self, function, magic_kind, magic_name):
            self.registered = (function, magic_kind, magic_name)

    shell = FakeShell()
    ah.load_cluster_magic(shell)
    function, kind, name = shell.registered
    assert (kind, name) == ("cell", "cluster") and callable(function)
    other = FakeShell()
    aurora_helpers.cluster.load_ipython_extension(other)  # %load_ext aurora_helpers.cluster
    assert other.registered[1:] == ("cell", "cluster")


def test_load_cluster_magic_outside_ipython_says_what_to_do():
    with pytest.raises(RuntimeError, match="run_cluster"):
        ah.load_cluster_magic()


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"processes": 0}, ValueError, "processes must be a positive integer"),
        ({"processes": True}, ValueError, "processes must be a positive integer"),
        ({"devices_per_process": "2"}, ValueError, "devices_per_process"),
        ({"timeout": -1}, ValueError, "timeout must be a positive number"),
        ({"start_timeout": 0}, ValueError, "start_timeout"),
        ({"imitate": "pbs"}, ValueError, "imitate must be None or one of"),
        ({"env": {"A": 1}}, TypeError, "env must map strings to strings"),
    ],
)
def test_bad_settings_are_rejected(kwargs, error, match):
    with pytest.raises(error, match=match):
        ah.LocalCluster(**kwargs)


@pytest.mark.parametrize(
    ("program", "args", "match"),
    [
        (42, (), "a cluster program is a function, source text"),
        (lambda: 1, (), "lambdas and closures"),
        ("print(1)", (1,), "args and kwargs are for function programs"),
        (programs.rank_info, (lambda: 1,), "arguments cannot be sent"),
    ],
)
def test_bad_programs_are_rejected_before_anything_starts(program, args, match):
    cluster = ah.LocalCluster(2, 1)
    with pytest.raises(TypeError, match=match):
        cluster.run(program, args=args)
    assert cluster.starts == 0 and not cluster.running


def test_closures_and_missing_scripts_are_rejected(tmp_path):
    k = 3

    def closure():
        return k

    cluster = ah.LocalCluster(2, 1)
    with pytest.raises(TypeError, match="closures"):
        cluster.run(closure)
    with pytest.raises(FileNotFoundError, match="no program file"):
        cluster.run(tmp_path / "missing.py")
    with pytest.raises(ValueError, match="timeout"):
        cluster.run("pass", timeout=0)
    assert not cluster.running


def test_worker_environment_is_local_and_clean(monkeypatch):
    monkeypatch.setenv("https_proxy", "http://proxy:3128")
    monkeypatch.setenv("XLA_FLAGS", "--xla_force_host_platform_device_count=8 --xla_dump_to=x")
    monkeypatch.setenv("SLURM_PROCID", "7")
    monkeypatch.setenv("JAX_COORDINATOR_ADDRESS", "10.0.0.1:1234")
    env = cluster_module._worker_env(1, 4, 1234, None, {"EXTRA": "1"})
    assert "https_proxy" not in env and "SLURM_PROCID" not in env
    assert "JAX_COORDINATOR_ADDRESS" not in env
    assert env["XLA_FLAGS"] == "--xla_dump_to=x" and env["JAX_PLATFORMS"] == "cpu"
    assert env["EXTRA"] == "1"
    slurm = cluster_module._worker_env(1, 4, 1234, "slurm", {})
    assert (slurm["SLURM_NTASKS"], slurm["SLURM_PROCID"]) == ("4", "1")
    assert slurm["JAX_COORDINATOR_BIND_ADDRESS"] == "127.0.0.1:1234"


def test_cluster_run_text_hides_gloo_chatter_but_keeps_it():
    run = ClusterRun(
        results=(1, None),
        stdout=("a\n", "b\n"),
        stderr=("[Gloo] Rank 0 is connected to 1 peer ranks. x\nwarn\n", ""),
        processes=2,
        devices_per_process=1,
        seconds=0.5,
    )
    text = str(run)
    assert "[rank 0] a" in text and "[rank 1] b" in text and "[rank 0 stderr] warn" in text
    assert "Gloo" not in text and "Gloo" in run.stderr[0]
    assert "[rank 0 result] 1" in text and "rank 1 result" not in text


def test_the_launcher_is_imported_only_when_used(fresh_python):
    out = fresh_python(
        """
        import sys
        import aurora_helpers as ah
        assert "aurora_helpers.cluster" not in sys.modules
        assert ah.LocalCluster.__module__ == "aurora_helpers.cluster.launcher"
        assert "aurora_helpers.cluster" in sys.modules and "LocalCluster" in dir(ah)
        assert ah.load_cluster_magic.__module__ == "aurora_helpers.cluster.magic"
        assert set(ah.__all__) <= set(dir(ah))
        try:
            ah.no_such_name
        except AttributeError as err:
            assert "no_such_name" in str(err)
        else:
            raise AssertionError("expected AttributeError")
        """
    )
    assert out.returncode == 0, out.stderr
