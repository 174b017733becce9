"""The ``simgold`` command.

simgold run [snakemake arguments]   run the pipeline (``snakemake``; ``--cores all`` unless given)
simgold scores [--results DIR]      the dataset x model table of the last run
simgold agreement [--results DIR]   one row per dataset: raters, excluded, items, pairwise, vs_rest, alpha;
                                    Best-Worst Scaling datasets: answers, raters, split-half reliability
simgold verify DIR                  check an unpacked archive against its MANIFEST
simgold rebuild DIR [--cores N] [--recompute]
                                    rerun an unpacked archive and compare every result file
simgold demo DIR                    write the simulated demo sheets (raw/demo)
simgold design ratings PAIRS ...    one questionnaire per rater, design.parquet and the config that
                                    reads the returned questionnaires (config/README.md, "Designing")
simgold design bws PAIRS ...        Best-Worst Scaling tuples: sheets, Label Studio's and Potato's files
simgold design rankings GROUPS ...  Avraham & Goldberg's ranking groups
simgold design topup DATASET --budget N
                                    a further round where the gold standard's intervals are widest

Only the parser's modules load for ``simgold --help``, ``simgold COMMAND --help`` and a usage error;
what a command needs (pandas, pyarrow, the designs, the report: ``simgold.commands``) loads once it runs.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


class _Version(argparse.Action):
    """``--version``: the installed distribution's version, looked up only when asked for."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(
            option_strings, dest, nargs=0, default=default, help=help or "show program's version number and exit"
        )

    def __call__(self, parser, namespace, values, option_string=None):
        from importlib import metadata  # stdlib; only for --version

        try:
            version = metadata.version("simgold")
        except metadata.PackageNotFoundError:
            version = "unknown"
        print(f"simgold {version}")  # on stdout, as argparse's own version action
        parser.exit()


def _common_design_arguments(p, formats=("xlsx", "csv")) -> None:
    p.add_argument("--seed", type=int, default=0, help="the same seed writes the same files (default 0)")
    p.add_argument("--out", type=Path, help="the folder written (default: design/NAME)")
    p.add_argument("--raw-dir", help="where the returned files will be, as the config says (default: raw/NAME)")
    p.add_argument("--formats", nargs="+", choices=formats, default=["xlsx"], help="the config reads the first")
    p.add_argument("--instructions", type=Path, help="a template of the instructions sheet (fields: {rater} ...)")


def _study_arguments(p, source: str, help_text: str) -> None:
    """The arguments every new study's design takes: its input file, name, language and raters."""
    p.add_argument(source, type=Path, help=help_text)
    p.add_argument("--name", required=True, help="the dataset's name in the config written")
    p.add_argument("--language", required=True, help="the dataset's ISO 639-1 code")
    p.add_argument("--raters", type=int, required=True, help="R, the raters who take part")


def _design_parser(sub) -> None:
    design = sub.add_parser("design", help="design a collection: questionnaires, and the config that reads them back")
    kinds = design.add_subparsers(dest="design", metavar="kind", required=True)
    p = kinds.add_parser(
        "ratings", help="one questionnaire per rater from a file of pairs (word1, word2, role, expect)"
    )
    _study_arguments(
        p, "pairs", "CSV or TSV: word1, word2 and optionally role (item, repeat, anchor, attention), expect"
    )
    p.add_argument("--scale", nargs=2, type=float, required=True, metavar=("LOW", "HIGH"))
    k = p.add_mutually_exclusive_group(required=True)
    k.add_argument("--per-item", type=int, help="K, the raters of each pair")
    k.add_argument(
        "--reliability", type=float, help="K sized for this reliability of the pairs' means (Spearman-Brown)"
    )
    p.add_argument(
        "--pilot", metavar="DATASET", help="size by this dataset's single-rater reliability (a finished run)"
    )
    p.add_argument("--results", type=Path, default=Path("results"), help="the pilot's results (default: results)")
    p.add_argument("--item-sd", type=float, help="size by an assumed SD of the pairs' true values ...")
    p.add_argument("--noise-sd", type=float, help="... and of one rater's noise")
    _common_design_arguments(p)
    p.add_argument("--tolerance", type=float, default=0.0, help="how far an attention answer may be off (default 0)")
    p.add_argument("--max-failures", type=int, default=0, help="failed checks a rater may have (default 0)")
    p.add_argument("--decimal", action="store_true", help="accept any number on the scale, not whole numbers only")
    p = kinds.add_parser("bws", help="Best-Worst Scaling tuples from a file of pairs: sheets, Potato, Label Studio")
    _study_arguments(p, "pairs", "CSV or TSV with word1, word2")
    p.add_argument("--k", type=int, default=4, help="items per tuple (default 4)")
    p.add_argument("--factor", type=float, default=2.0, help="tuples per item: factor x N tuples (default 2)")
    k = p.add_mutually_exclusive_group(required=True)
    k.add_argument("--per-tuple", type=int, help="K, the answers each tuple gets")
    k.add_argument("--reliability", type=float, help="K sized for this split-half reliability (needs --pilot)")
    p.add_argument("--pilot", metavar="DATASET", help="a finished run's BWS dataset whose reliability sizes K")
    p.add_argument("--results", type=Path, default=Path("results"), help="the pilot's results (default: results)")
    _common_design_arguments(p, ("xlsx", "csv", "potato", "label_studio"))
    _later_design_parsers(kinds)


def _later_design_parsers(kinds) -> None:
    """``design rankings`` and ``design topup``."""
    p = kinds.add_parser("rankings", help="Avraham & Goldberg's ranking groups: raters rank each target's positives")
    _study_arguments(p, "groups", "CSV or TSV: target, candidate, category (positive or distractor)")
    p.add_argument(
        "--vocabulary", type=Path, required=True, help="words to draw random words from (whitespace-separated)"
    )
    p.add_argument("--random", type=int, default=1, help="random words per target (default 1)")
    p.add_argument("--per-group", type=int, required=True, help="K, the raters who rank each target's group")
    _common_design_arguments(p)
    p = kinds.add_parser("topup", help="a further round of a ratings dataset: answers where the gold's CIs are widest")
    p.add_argument("name", metavar="DATASET", help="the dataset (its results must exist)")
    p.add_argument("--budget", type=int, required=True, help="N, the further answers to ask for")
    p.add_argument(
        "--config", type=Path, nargs="+", default=[Path("config/config.yaml")], help="the run's config files"
    )
    p.add_argument("--results", type=Path, default=Path("results"), help="the run's results (default: results)")
    p.add_argument("--new-raters", type=int, default=0, help="raters who join in this round (default 0)")
    p.add_argument("--round", type=int, default=2, help="the round's number (default 2): raw/DATASET/roundN/")
    p.add_argument("--raters", type=int, help="a BWS dataset: the round's raters R")
    p.add_argument("--per-tuple", type=int, help="a BWS dataset: the answers each tuple gets")
    p.add_argument("--k", type=int, default=4, help="a BWS dataset: pairs per tuple (default 4)")
    _common_design_arguments(p, ("xlsx", "csv", "potato", "label_studio"))


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="simgold", description="Word-similarity gold standards and embedding evaluation."
    )
    top.add_argument("--version", action=_Version)
    sub = top.add_subparsers(dest="command", metavar="command")
    sub.add_parser("run", help="run the pipeline: snakemake with the given arguments (--cores all unless given)")
    for name, text in (
        ("scores", "the dataset x model table of a finished run"),
        ("agreement", "inter-rater agreement per dataset"),
    ):
        p = sub.add_parser(name, help=text)
        p.add_argument("--results", type=Path, default=Path("results"), help="the results directory (default: results)")
    p = sub.add_parser("rejects", help="the values cleaning rejected, per dataset; by reason with examples for one")
    p.add_argument("dataset", nargs="?", help="one dataset: its rejected values by reason, 5 examples each")
    p.add_argument("--results", type=Path, default=Path("results"), help="the results directory (default: results)")
    p = sub.add_parser("verify", help="check an unpacked archive against its MANIFEST")
    p.add_argument("directory", type=Path)
    p = sub.add_parser("rebuild", help="rerun an unpacked archive's workflow and compare every result file")
    p.add_argument("directory", type=Path)
    p.add_argument("--cores", type=int, default=2)
    p.add_argument(
        "--recompute",
        action="store_true",
        help="recompute the models' vectors too (by default they are read from the archive), and report how far "
        "each model's vectors and scores moved",
    )
    p = sub.add_parser("demo", help="write the simulated demo sheets")
    p.add_argument("directory", type=Path)
    _design_parser(sub)
    return top


def main(argv: list[str] | None = None) -> int:
    try:
        return _main(argv)
    except BrokenPipeError:  # `simgold rejects d | head`: the reader stopped reading; no traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # Python's own advice, so exit is quiet
        return 1


def _main(argv: list[str] | None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = None
    if argv[:1] != ["run"]:  # everything after `run` belongs to snakemake
        args = parser().parse_args(argv)  # --help and a usage error end here, before a command's modules load
        if args.command is None:  # bare `simgold`: what it can do
            parser().print_help()
            return 0
    from simgold import commands  # pandas, pyarrow, the designs and the report: once a command runs, not for --help

    return commands.run_snakemake(argv[1:]) if args is None else commands.execute(args)


if __name__ == "__main__":
    raise SystemExit(main())
