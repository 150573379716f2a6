"""The ``aurora`` command: ``probe``, ``bench``, ``run`` and ``student``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

DEFAULT_NOTEBOOKS = Path("notebooks")
DEFAULT_BUILD = Path("build")


def _cmd_probe(args: argparse.Namespace) -> int:
    from .devices import setup_devices

    setup_devices(args.devices)
    from .probe import probe

    report = probe()
    if args.json:
        print(report.to_json())
    elif args.html:
        print(report._repr_html_())
    else:
        print(report)
    return 0 if report.jax_supported else 1


def _cmd_bench(args: argparse.Namespace) -> int:
    import json

    from .devices import setup_devices

    setup_devices(args.devices)
    from .throughput.driver import COMPARE_LIBRARIES, load_suite, measure_with
    from .throughput.jax_suite import JaxSuite
    from .throughput.ops import ComparisonUnavailable, ThroughputSuite
    from .throughput.results import MachineThroughput, compare_throughputs

    suite = JaxSuite()

    def measure(s: ThroughputSuite) -> MachineThroughput:
        return measure_with(s, quick=args.quick, budget_s=args.budget)

    status = 0
    others: list[ThroughputSuite] = []
    wanted = (
        list(COMPARE_LIBRARIES)
        if args.compare == "auto"
        else ([args.compare] if args.compare else [])
    )
    for library in wanted:
        try:
            others.append(load_suite(library, suite.platform))
        except (ModuleNotFoundError, ComparisonUnavailable) as err:
            explicit = args.compare != "auto"
            print(f"aurora bench: {'error' if explicit else 'note'}: {err}", file=sys.stderr)
            if explicit:
                status = 1
    if status:
        return status  # the comparison asked for cannot run: say so before spending time

    results = [measure(suite)] + [measure(other) for other in others]
    if args.json:
        data = {"results": [r.to_dict() for r in results]}
        print(json.dumps(data, indent=2, default=str))
        return status
    for result in results:
        print(result)
        if args.detail:
            print(result.details())
        print()
    for other in results[1:]:
        print(compare_throughputs(results[0], other))
        print()
    return status


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
    if course.site:
        print(f"The course website ({course.site_seconds:.1f} s to build): {course.site}")
    return 0 if course.ok else 1


def _cmd_student(args: argparse.Namespace) -> int:
    from .course import find_notebooks, select_notebooks
    from .student import write_student_copies

    notebooks = select_notebooks(find_notebooks(args.notebooks), args.only)
    for path in write_student_copies(notebooks, args.out):
        print(path)
    return 0


def _cmd_schedule(args: argparse.Namespace) -> int:
    from .schedule import read_course_times, render_schedule

    text = render_schedule(read_course_times(args.notebooks))
    if args.check:
        current = args.file.read_text(encoding="utf-8") if args.file.exists() else ""
        if current != text:
            print(
                f"aurora schedule: {args.file} is out of date with the notebooks' time lines; "
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
    r.set_defaults(func=_cmd_run)

    s = sub.add_parser("student", help="write student copies with solutions stubbed out")
    s.add_argument(
        "--notebooks", type=Path, default=DEFAULT_NOTEBOOKS, help="folder of source notebooks"
    )
    s.add_argument("--out", type=Path, default=DEFAULT_BUILD / "student", help="output folder")
    s.add_argument("--only", nargs="+", metavar="NN", help="notebook numbers")
    s.set_defaults(func=_cmd_student)

    sc = sub.add_parser("schedule", help="workshop schedules from the notebooks' time lines")
    sc.add_argument(
        "--notebooks", type=Path, default=DEFAULT_NOTEBOOKS, help="folder of source notebooks"
    )
    sc.add_argument("--file", type=Path, default=Path("SCHEDULE.md"), help="the schedule file")
    mode = sc.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="write the schedule file")
    mode.add_argument("--check", action="store_true", help="fail when the file is out of date")
    sc.set_defaults(func=_cmd_schedule)

    q = sub.add_parser("quickref", help="the one-page quick reference, as HTML and PDF")
    q.add_argument(
        "--notebooks", type=Path, default=DEFAULT_NOTEBOOKS, help="folder of source notebooks"
    )
    q.add_argument("--out", type=Path, default=DEFAULT_BUILD, help="output folder")
    q.add_argument("--no-pdf", action="store_true", help="write the HTML only (no Chromium)")
    q.set_defaults(func=_cmd_quickref)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except (ValueError, RuntimeError) as err:
        print(f"aurora {args.command}: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
