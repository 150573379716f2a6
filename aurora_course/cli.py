"""The ``aurora`` command: ``probe``, ``bench``, ``plan``, ``run``, ``student``, ``grade``,
``retarget``, ``schedule``, ``quickref``, ``kernel`` and ``nbgitpuller-link``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

DEFAULT_NOTEBOOKS = Path("notebooks")
DEFAULT_BUILD = Path("build")


def _cmd_probe(args: argparse.Namespace) -> int:
    from aurora_helpers.devices import setup_devices

    setup_devices(args.devices)
    from aurora_helpers.machine_report import probe

    report = probe()
    if args.json:
        print(report.to_json())
    elif args.html:
        print(report._repr_html_())
    else:
        print(report)
    return 0 if report.jax_supported else 1


def _cmd_bench(args: argparse.Namespace) -> int:
    from .bench import bench

    return bench(
        devices=args.devices,
        quick=args.quick,
        budget_s=args.budget,
        compare=args.compare,
        detail=args.detail,
        as_json=args.json,
    )


def _cmd_plan(args: argparse.Namespace) -> int:
    import json

    from aurora_helpers.perf.planner import Machine, Transformer, search

    if args.model:
        model = Transformer.preset(args.model, seq=args.seq, batch=args.batch)
    elif args.layers:
        needed = {"--d-model": args.d_model, "--d-ff": args.d_ff, "--heads": args.heads}
        missing = [flag for flag, value in needed.items() if value is None]
        if missing:
            raise ValueError(f"--layers needs {', '.join(missing)} as well")
        model = Transformer(
            args.layers,
            args.d_model,
            args.d_ff,
            args.heads,
            args.kv_heads,
            vocab=args.vocab,
            seq=args.seq,
            batch=args.batch,
        )
    elif args.params:
        model = Transformer.from_params(
            args.params, seq=args.seq, batch=args.batch, vocab=args.vocab
        )
    else:
        raise ValueError("name the model: --params N, --model PRESET or --layers with its sizes")
    machine = Machine.preset(args.machine)
    if args.bench:
        machine = Machine.from_bench(json.loads(Path(args.bench).read_text()), like=machine)
    ranking = search(
        model,
        machine,
        args.devices,
        precision=args.precision,
        optimizer=args.optimizer,
        remat=args.remat or ("none", "mlp-matmuls", "full"),
        efficiency=args.efficiency,
    )
    if args.json:
        print(
            json.dumps(
                {
                    "model": {**model.__dict__, "params": model.params},
                    "machine": machine.name,
                    "devices": args.devices,
                    "tried": ranking.tried,
                    "plans": [
                        {
                            "layout": p.layout.name,
                            **{f"{k}_bytes": v for k, v in p.memory.items()},
                            "step_seconds": p.step_seconds,
                            "compute_seconds": p.compute_seconds,
                            "exposed_comm_seconds": p.exposed_comm_seconds,
                            "bound": p.bound,
                            "mfu": p.mfu,
                            "sent_bytes": p.sent_by_kind(),
                        }
                        for p in ranking.plans[: args.top]
                    ],
                },
                indent=2,
            )
        )
        return 0 if ranking.plans else 1
    print(
        f"{model.params / 1e9:.2f}B parameters ({model.layers} layers, d_model {model.d_model}, "
        f"d_ff {model.d_ff}, {model.heads} heads / {model.kv} KV, vocab {model.vocab}); "
        f"batch {model.batch} x {model.seq} tokens; {args.devices} x {machine.name} "
        f"({machine.memory / 1e9:.0f} GB, {machine.flops / 1e12:.3g} TFLOP/s)"
    )
    print(ranking.table(args.top))
    if not ranking.plans:
        print(
            f"nothing fits; smallest peak: {ranking.rejected[0].summary()}"
            if ranking.rejected
            else ""
        )
        return 1
    print("\nbest:\n" + ranking.best.summary())
    return 0


def _cmd_run(args: argparse.Namespace) -> int:
    from .runner import parse_parameters, run_course

    course = run_course(
        args.notebooks,
        args.build,
        devices=args.devices,
        only=args.only,
        parameters=parse_parameters(args.param),
        progress=not args.no_progress,
        render_html=not args.no_html,
    )
    print(course.table())
    print(
        f"\nExecuted notebooks in {args.build}/notebooks; open {args.build}/index.html for the report."
    )
    if args.memory_report:
        from .memory_report import write_memory_report

        print(f"Memory per notebook written to {write_memory_report(args.memory_report, course)}")
    if course.site:
        print(f"The course website ({course.site_seconds:.1f} s to build): {course.site}")
    return 0 if course.ok else 1


def _cmd_student(args: argparse.Namespace) -> int:
    from .answer_leaks import find_leaks
    from .course import find_notebooks, locate_notebooks, select_notebooks
    from .handout import stale_student_copies, write_presenter_copies
    from .student import write_student_copies

    folder = locate_notebooks(args.notebooks)
    notebooks = select_notebooks(find_notebooks(folder), args.only)
    if args.check:
        stale = stale_student_copies(folder, args.out)
        for name in stale:
            print(args.out / name)
        if stale:
            print(
                f"aurora student: {len(stale)} student cop(ies) above differ from the notebooks; "
                f"run `aurora student --out {args.out}` (make student)",
                file=sys.stderr,
            )
        return 1 if stale else 0
    if args.presenter:
        for path in write_presenter_copies(notebooks, args.out, notebooks_dir=folder):
            print(path)
        return 0
    for source, path in zip(
        notebooks, write_student_copies(notebooks, args.out, notebooks_dir=folder), strict=True
    ):
        print(path)
        for leak in find_leaks(source, path):
            print(f"aurora student: warning: {path.name}: {leak}", file=sys.stderr)
    return 0


def _cmd_retarget(args: argparse.Namespace) -> int:
    from .retarget import find_root, retarget

    root = args.root if args.root is not None else find_root(Path.cwd())
    changed = retarget(root, args.slug, args.ref, freeze=args.freeze, write=not args.check)
    for path in changed:
        print(path.relative_to(root.resolve()))
    if args.check and changed:
        print(
            f"aurora retarget: {len(changed)} file(s) above disagree with aurora_course/course.py;"
            " run `aurora retarget` to rewrite them",
            file=sys.stderr,
        )
        return 1
    if not changed:
        print("every link and install cell already agrees with aurora_course/course.py")
    return 0


def _cmd_kernel(args: argparse.Namespace) -> int:
    from .jupyterhub import install_kernel

    where = install_kernel(
        name=args.name,
        display_name=args.display_name,
        user=args.user,
        prefix=args.prefix,
        devices=args.devices,
    )
    print(f"Installed kernel {args.name!r} ({args.display_name}) for {sys.executable} in {where}")
    return 0


def _cmd_nbgitpuller_link(args: argparse.Namespace) -> int:
    from .jupyterhub import nbgitpuller_link

    print(
        nbgitpuller_link(
            args.hub,
            notebook=args.notebook,
            branch=args.branch,
            interface=args.interface,
            folder=args.folder,
        )
    )
    return 0


def _cmd_schedule(args: argparse.Namespace) -> int:
    from .schedule import read_course_times, render_schedule

    text = render_schedule(read_course_times(args.notebooks))
    if args.check:
        current = args.file.read_text(encoding="utf-8") if args.file.exists() else ""
        if current != text:
            print(
                f"aurora schedule: {args.file} is out of date with the notebooks; "
                "run `aurora schedule --write`",
                file=sys.stderr,
            )
            return 1
        print(f"{args.file} is up to date")
    elif args.write:
        args.file.write_text(text, encoding="utf-8")
        print(f"wrote {args.file}")
    else:
        print(text, end="")
    return 0


def _cmd_quickref(args: argparse.Namespace) -> int:
    from .quickref import write_quickref

    for path in write_quickref(args.notebooks, args.out, pdf=not args.no_pdf):
        print(path)
    return 0


def _cmd_grade(args: argparse.Namespace) -> int:
    from .grading import Progress, default_jobs, grade, write_report

    grades = grade(
        args.paths,
        notebooks_dir=args.notebooks,
        devices=args.devices,
        timeout_s=args.timeout,
        exercise_timeout_s=args.exercise_timeout,
        jobs=args.jobs or default_jobs(),
        progress=Progress(),
    )
    if args.json:
        write_report(grades.to_json(), args.json)
    if args.csv:
        from .grading.gradebook import build, read_roster, to_csv, unmatched

        roster = read_roster(args.roster) if args.roster else []
        book = build(grades.submissions, roster)
        write_report(to_csv(book, args.lms), args.csv)
        for flag in book.all_flags():
            print(f"look at: {flag}", file=sys.stderr)
        lost = unmatched(book, args.lms)
        if lost:
            print(
                f"look at: {args.lms} cannot match these rows to a learner on import (no ID in "
                f"the file names and none on the roster): {', '.join(lost)}",
                file=sys.stderr,
            )
    if args.detail_csv:
        write_report(grades.to_detail_csv(), args.detail_csv)
    if "-" not in (args.json, args.csv, args.detail_csv):
        print(grades.table())
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="aurora", description="Project Aurora course tools.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("probe", help="describe the machine JAX sees")
    p.add_argument(
        "--devices",
        type=int,
        default=None,
        help="simulated CPU devices (default $AURORA_DEVICES or 8)",
    )
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print JSON")
    fmt.add_argument("--html", action="store_true", help="print an HTML table")
    p.set_defaults(func=_cmd_probe)

    b = sub.add_parser(
        "bench",
        help="measure transfers, on-device bandwidth and matmul throughput",
        description="Measure host<->device transfers, on-device bandwidth and matmul throughput "
        "with JAX, against published peaks where known; optionally the same with another library.",
    )
    b.add_argument(
        "--devices", type=int, default=1, help="simulated CPU devices (default 1; CPU only)"
    )
    b.add_argument("--quick", action="store_true", help="small sizes and short budgets")
    b.add_argument(
        "--budget", type=float, default=None, metavar="SECONDS", help="timing budget per point"
    )
    b.add_argument(
        "--compare",
        choices=["torch", "auto"],
        default=None,
        help="also measure with this library, side by side; 'auto' uses whichever is installed "
        "(a missing library is an error only when named)",
    )
    b.add_argument("--detail", action="store_true", help="print every size of every sweep")
    b.add_argument("--json", action="store_true", help="print JSON")
    b.set_defaults(func=_cmd_bench)

    pl = sub.add_parser(
        "plan",
        help="rank the layouts of a transformer training run that fit (memory, time, MFU)",
        description="Predict per-device memory, collectives, step time and MFU of a decoder-only "
        "transformer's training step for every factorisation of the devices into data, ZeRO/FSDP, "
        "tensor and pipeline parallelism, and rank the layouts that fit "
        "(aurora_helpers.perf.planner). Arithmetic only: nothing runs.",
    )
    what = pl.add_mutually_exclusive_group()
    what.add_argument("--params", type=float, help="parameters, e.g. 8e9 (a LLaMA-like shape)")
    what.add_argument("--model", help="a published shape: llama3-8b, llama3-70b, llama2-13b, ...")
    what.add_argument("--layers", type=int, help="layers (with --d-model, --d-ff, --heads)")
    pl.add_argument("--d-model", type=int)
    pl.add_argument("--d-ff", type=int)
    pl.add_argument("--heads", type=int)
    pl.add_argument("--kv-heads", type=int, default=None)
    pl.add_argument("--vocab", type=int, default=32_000)
    pl.add_argument("--seq", type=int, default=4096, help="tokens per sequence (default 4096)")
    pl.add_argument("--batch", type=int, default=256, help="global batch in sequences (256)")
    pl.add_argument("--devices", type=int, required=True, help="devices to factorise")
    pl.add_argument(
        "--machine", default="h100", help="h100 (default), h200, tpu-v5e, tpu-v5p, tpu-v6e"
    )
    pl.add_argument(
        "--bench", metavar="JSON", help="a file from `aurora bench --json`: its measured roofs"
    )
    pl.add_argument(
        "--precision", default="mixed", help="mixed (default), mixed-fp32-acc, fp32, bf16"
    )
    pl.add_argument("--optimizer", default="adam", help="adam (default), momentum, sgd")
    pl.add_argument(
        "--remat",
        action="append",
        choices=["none", "mlp-matmuls", "full"],
        help="remat policies to try (repeat; default all three)",
    )
    pl.add_argument(
        "--efficiency", type=float, default=1.0, help="fraction of peak FLOP/s reached (1)"
    )
    pl.add_argument("--top", type=int, default=10, help="rows to print (10)")
    pl.add_argument("--json", action="store_true", help="print JSON")
    pl.set_defaults(func=_cmd_plan)

    r = sub.add_parser("run", help="execute the course into a build folder")
    r.add_argument(
        "--devices",
        type=int,
        default=None,
        help="simulated CPU devices per notebook (default $AURORA_DEVICES or 8)",
    )
    r.add_argument(
        "--only", nargs="+", metavar="NN", help="notebook numbers to run, e.g. --only 03 05"
    )
    r.add_argument(
        "-p",
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="notebook parameter (repeatable)",
    )
    r.add_argument(
        "--notebooks", type=Path, default=DEFAULT_NOTEBOOKS, help="folder of source notebooks"
    )
    r.add_argument("--build", type=Path, default=DEFAULT_BUILD, help="output folder")
    r.add_argument("--no-progress", action="store_true", help="no progress bar")
    r.add_argument(
        "--no-html",
        action="store_true",
        help="skip the HTML renderings, the index page and the website",
    )
    r.add_argument(
        "--memory-report",
        type=Path,
        metavar="FILE",
        help="write the per-notebook peak memory table to FILE (between its marker lines, "
        "as in docs/jupyterhub.md)",
    )
    r.set_defaults(func=_cmd_run)

    s = sub.add_parser("student", help="write student copies with solutions stubbed out")
    s.add_argument(
        "--notebooks",
        type=Path,
        default=None,
        help="folder of source notebooks (default ./notebooks, else the installed checkout's)",
    )
    s.add_argument(
        "--out",
        type=Path,
        default=DEFAULT_BUILD / "student",
        help="output folder (never the notebooks folder or inside it)",
    )
    s.add_argument("--only", nargs="+", metavar="NN", help="notebook numbers")
    s.add_argument(
        "--presenter",
        action="store_true",
        help="write presenter copies instead: instructor notes removed, solutions kept",
    )
    s.add_argument(
        "--check",
        action="store_true",
        help="write nothing; list the copies in --out that differ from the notebooks (exit 1)",
    )
    s.set_defaults(func=_cmd_student)

    t = sub.add_parser(
        "retarget",
        help="point Colab links and install cells at a repository and a fixed ref",
        description="Rewrite REPOSITORY_SLUG and REF in aurora_course/course.py, then every "
        "notebook's Colab install cell (.md and .ipynb alike), the README's Colab links and any "
        "other mention of the repository, so that they all agree.",
    )
    t.add_argument("--slug", default=None, help="GitHub owner/name (default: unchanged)")
    t.add_argument(
        "--ref",
        default=None,
        help="release tag v<version> or commit the notebooks install from (default: unchanged)",
    )
    t.add_argument(
        "--root", type=Path, default=None, help="the course checkout (default: the one around .)"
    )
    t.add_argument(
        "--check",
        action="store_true",
        help="change nothing; list what disagrees and exit 1 if anything does",
    )
    frozen = t.add_mutually_exclusive_group()
    frozen.add_argument(
        "--freeze",
        dest="freeze",
        action="store_true",
        default=None,
        help="a workshop ref: install cells pin JAX and the training stack to the tested releases "
        "(the 'tested' extra, written into pyproject.toml); then commit, then tag",
    )
    frozen.add_argument(
        "--follow",
        dest="freeze",
        action="store_false",
        help="undo --freeze: install cells take the newest releases the ranges admit",
    )
    t.set_defaults(func=_cmd_retarget)

    from .jupyterhub import DEFAULT_DISPLAY_NAME, DEFAULT_KERNEL_NAME

    k = sub.add_parser("kernel", help="register this Python as a Jupyter kernel")
    k_sub = k.add_subparsers(dest="action", required=True)
    ki = k_sub.add_parser(
        "install",
        help="register the kernel (a wrapper over `python -m ipykernel install`)",
    )
    ki.add_argument("--name", default=DEFAULT_KERNEL_NAME, help="kernel name (default %(default)s)")
    ki.add_argument(
        "--display-name", default=DEFAULT_DISPLAY_NAME, help="name shown in JupyterLab's launcher"
    )
    where = ki.add_mutually_exclusive_group()
    where.add_argument("--user", action="store_true", help="for the current user only")
    where.add_argument(
        "--prefix", type=Path, default=None, help="under PREFIX/share/jupyter/kernels"
    )
    ki.add_argument(
        "--devices",
        type=int,
        default=None,
        help="set $AURORA_DEVICES in the kernel (default: the notebooks' default, 8)",
    )
    ki.set_defaults(func=_cmd_kernel)

    pull = sub.add_parser(
        "nbgitpuller-link",
        help="print the JupyterHub link that pulls the course and opens a student copy",
    )
    pull.add_argument(
        "--hub", required=True, help="the hub's address, e.g. https://hub.example.org"
    )
    pull.add_argument("--notebook", default="00_welcome.ipynb", help="notebook to open")
    pull.add_argument(
        "--branch", default="main", help="branch or tag to pull (default %(default)s)"
    )
    pull.add_argument("--interface", choices=["lab", "tree"], default="lab")
    pull.add_argument(
        "--folder",
        default="student",
        help="folder of the repository to open: student (the student copies, default), "
        "notebooks (with solutions and instructor notes), or . for a branch of student copies",
    )
    pull.set_defaults(func=_cmd_nbgitpuller_link)

    sc = sub.add_parser(
        "schedule", help="workshop schedules from the notebooks (minutes by a stated rule)"
    )
    sc.add_argument(
        "--notebooks", type=Path, default=DEFAULT_NOTEBOOKS, help="folder of source notebooks"
    )
    sc.add_argument("--file", type=Path, default=Path("SCHEDULE.md"), help="the schedule file")
    mode = sc.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="write the schedule file")
    mode.add_argument("--check", action="store_true", help="fail when the file is out of date")
    sc.set_defaults(func=_cmd_schedule)

    q = sub.add_parser(
        "quickref", help="the quick reference (one sheet, both sides), as HTML and PDF"
    )
    q.add_argument(
        "--notebooks", type=Path, default=DEFAULT_NOTEBOOKS, help="folder of source notebooks"
    )
    q.add_argument("--out", type=Path, default=DEFAULT_BUILD, help="output folder")
    q.add_argument("--no-pdf", action="store_true", help="write the HTML only (no Chromium)")
    q.set_defaults(func=_cmd_quickref)

    g = sub.add_parser(
        "grade",
        help="grade learners' notebooks: their answer cells, run in the course's own notebooks",
    )
    g.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="notebooks or folders")
    g.add_argument(
        "--devices", type=int, default=None, help="simulated CPU devices (as for aurora run)"
    )
    g.add_argument(
        "--timeout", type=float, default=300.0, metavar="S", help="seconds per run of a notebook"
    )
    g.add_argument(
        "--exercise-timeout",
        type=float,
        default=120.0,
        metavar="S",
        help="seconds any one cell of an exercise (answer or check) may run; past it, the "
        "exercise scores wrong (default 120)",
    )
    g.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="submissions graded at once (default: one per core)",
    )
    g.add_argument("--json", metavar="FILE", help="write the grades as JSON (- for stdout)")
    g.add_argument(
        "--csv",
        metavar="FILE",
        help="the gradebook: one row per learner, a column of points per exercise and the total "
        "(- for stdout)",
    )
    g.add_argument(
        "--lms",
        choices=["plain", "canvas", "moodle"],
        default="plain",
        help="the --csv shape: plain (one column per exercise), canvas (its gradebook import) or "
        "moodle (its grading worksheet); see docs/grading.md",
    )
    g.add_argument(
        "--roster",
        type=Path,
        default=None,
        metavar="FILE",
        help="the class list for --csv: Canvas's gradebook export, Moodle's grading worksheet, or "
        "a CSV with a 'learner' column (names, IDs, and a row for every learner)",
    )
    g.add_argument(
        "--detail-csv",
        metavar="FILE",
        help="one row per submission and exercise, with the check's message (- for stdout)",
    )
    g.add_argument(
        "--notebooks",
        type=Path,
        default=None,
        help="the course's notebooks folder (default ./notebooks, else the installed course's)",
    )
    g.set_defaults(func=_cmd_grade)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except BrokenPipeError:  # `aurora plan ... | head`: the reader has what it wanted
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (ValueError, RuntimeError) as err:
        print(f"aurora {args.command}: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
