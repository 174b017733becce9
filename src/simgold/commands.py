"""What the ``simgold`` command does once its command line is parsed (``simgold.cli`` parses it).

Apart from the parser so that ``simgold --help``, ``simgold COMMAND --help`` and a usage error load
none of what the commands need (pandas, pyarrow, the designs and the report): ``simgold.cli`` imports
this module only once a command runs.
"""

from __future__ import annotations

import csv
import string
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

from simgold.errors import SimgoldError
from simgold.io.profiles import check_run_configs, command_line_config_files
from simgold.io.demo import generate as generate_demo
from simgold.io.labels import confidence_labels
from simgold.io.paths import within_results
from simgold.io.tables import read_parquet
from simgold.report.rebuild import rebuild
from simgold.report.verify import verify
from simgold.report.bws_sections import BWS_LEGEND, bws_overview
from simgold.report.headline import agreement_overview, headline, overview_statistics
from simgold.io.ledger import normalised_text, rejected_examples, rejection_line, set_aside_text
from simgold.stats.agreement_statistics import AGREEMENT_STATISTICS
from simgold.design.bws import INSTRUCTIONS as BWS_INSTRUCTIONS
from simgold.design.bws import design_bws
from simgold.design.output import config_text, write_design
from simgold.design.pairs import read_pairs
from simgold.design.rankings import DEFAULT_INSTRUCTIONS as RANKING_INSTRUCTIONS
from simgold.design.rankings import design_rankings
from simgold.design.sheets import fill_instructions
from simgold.design.ratings import checked_r1, design_ratings, pilot_reliability, pilot_row
from simgold.design.topup import design_bws_topup, design_topup
from simgold.stats.rating_design import size_rating_design
from simgold.stats.reliability import single_rater

__all__ = ["config_files", "execute", "run_snakemake"]

#: snakemake options that already say how many jobs may run (so `run` adds no --cores)
_PARALLELISM = (
    "-c",
    "--cores",
    "-j",
    "--jobs",
    "--executor",
    "-e",
    "--profile",
    "--workflow-profile",
    "-n",
    "--dry-run",
)


def config_files(args: list[str]) -> list[str]:
    """The config files a snakemake command line makes it read: the workflow's own and those given
    with ``--configfile a.yaml b.yaml``, ``--configfiles ...`` or ``--configfile=a.yaml`` (those its
    profiles name: :func:`simgold.io.profiles.check_run_configs`).

    Parameters
    ----------
    args : list of str
        Snakemake's command line (after ``simgold run``).

    Returns
    -------
    list of str
        The config files, the workflow's first.

    Examples
    --------
    >>> config_files(["-n", "--configfile", "a.yaml", "b.yaml", "--configfiles=c.yaml", "all"])
    ['config/config.yaml', 'a.yaml', 'b.yaml', 'c.yaml']
    """
    return ["config/config.yaml", *command_line_config_files(args)]


def run_snakemake(args: list[str]) -> int:
    """``simgold run ARGS``: Snakemake run with ``ARGS`` (``--cores all`` unless they say how many jobs
    may run), once every config file it will read is checked.

    Parameters
    ----------
    args : list of str
        The command line after ``run``: Snakemake's own arguments.

    Returns
    -------
    int
        Snakemake's exit status; 1 where a config file is refused before it starts.
    """
    # Snakemake merges a --configfile and a profile's configfile into its config (expanding an alias
    # bomb of mappings, reading a device) before the Snakefile's own check runs: so every file it will
    # read is checked here, before Snakemake starts
    options = args[: args.index("--")] if "--" in args else args
    try:
        if not {"-h", "--help"} & set(options):  # help reads no config
            check_run_configs(args)
    except SimgoldError as err:
        print(err, file=sys.stderr)
        return 1
    given = any(
        a == opt or a.startswith(opt + "=") or (opt in ("-c", "-j") and a.startswith(opt))
        for a in args
        for opt in _PARALLELISM
    )
    # snakemake's own command where it is installed beside this Python: its help then says
    # `usage: snakemake`, not `usage: __main__.py`
    script = Path(sys.executable).with_name("snakemake")
    program = [str(script)] if script.is_file() else [sys.executable, "-m", "snakemake"]
    command = [*program, *([] if given else ["--cores", "all"]), *args]
    return subprocess.call(command)


def _table_text(frame) -> str:
    """Columns left-aligned, two spaces apart (a cell holds single spaces only); floats to 3 decimals."""

    def text(value) -> str:
        if value is None or value != value:
            return ""
        shown = f"{value:.3f}" if isinstance(value, float) else str(value)
        # a rejected cell may hold a CR, a NUL or a terminal escape: shown as \r, \x00, \x1b
        return shown if shown.isprintable() else "".join(c if c.isprintable() else repr(c)[1:-1] for c in shown)

    rows = [list(map(str, frame.columns))] + [[text(v) for v in row] for row in frame.itertuples(index=False)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows)


def _scores(results: Path) -> int:
    path = results / within_results("scores_summary")
    if not path.is_file():
        print(f"{path}: not found; run the pipeline first (simgold run)", file=sys.stderr)
        return 1
    summary = read_parquet(path)
    head = headline(summary)
    cells = head.assign(
        cell=[
            note or f"{v:.3f} [{lo:.3f}, {hi:.3f}]" + (f" oov {oov:.0%}" if oov > 0 else "")
            for v, lo, hi, oov, note in zip(
                head["value"], head["ci_low"], head["ci_high"], head["oov_pairs"].fillna(0), head["note"]
            )
        ]
    )
    table = cells.pivot(index="dataset", columns="model", values="cell").fillna("")
    table.insert(0, "metric", cells.groupby("dataset")["metric"].first())
    # the level the run's scoring.confidence gave (a table of a run before the column: not recorded)
    level = confidence_labels(head["confidence"]) if "confidence" in summary else "(level not recorded)"
    print(f"{'; '.join(sorted(set(head['metric'])))} with {level} bootstrap CI; oov: share of pairs not scored")
    print(_table_text(table.reset_index().rename_axis(columns=None)))
    return 0


def _agreement(results: Path) -> int:
    pattern = within_results("agreement", dataset="*")
    agreements = [read_parquet(p) for p in sorted(results.glob(pattern))]
    bws = [read_parquet(p) for p in sorted(results.glob(within_results("bws_reliability", dataset="*")))]
    if not agreements and not bws:
        print(f"{results / pattern}: no agreement tables; run the pipeline first (simgold run)", file=sys.stderr)
        return 1
    raters = [read_parquet(p) for p in sorted(results.glob(within_results("agreement_raters", dataset="*")))]
    if agreements:
        icc = [read_parquet(p) for p in sorted(results.glob(within_results("agreement_icc", dataset="*")))]
        retest = [read_parquet(p) for p in sorted(results.glob(within_results("agreement_retest", dataset="*")))]
        table = agreement_overview(agreements, raters, icc or None, retest or None)  # an older run: no such column
        shown = overview_statistics().items()
        legend = "; ".join(f"{label}: {AGREEMENT_STATISTICS[name].description}" for name, label in shown)
        legend += "; ICC(k): intraclass correlation of the raters' mean (ICC(2,k); ICC(1,k) for rating slots)"
        legend += "; retest ICC: test-retest ICC(2,1) of the raters' repeated answers (blank: none repeated)"
        print(f"raters: before outlier filtering; of the raters kept (optimistic where some were excluded): {legend}")
        print(_table_text(table))
    if bws:  # Best-Worst Scaling datasets: a table of their own
        print(f"Best-Worst Scaling: {BWS_LEGEND}", _table_text(bws_overview(bws, raters)), sep="\n")
    return 0


def _rejects(results: Path, dataset: str | None) -> int:
    """Per dataset, the values cleaning rejected; for one dataset, by reason with examples."""
    pattern = within_results("clean", dataset=dataset or "*", table="summary")
    paths = sorted(results.glob(pattern))
    if not paths:
        print(f"{results / pattern}: not found; run the pipeline first (simgold run)", file=sys.stderr)
        return 1
    summary = None
    for path in paths:
        summary = read_parquet(path).iloc[0]
        if "n_values_held" not in summary:  # a table of a run before the count
            print(f"{summary['dataset']}: rejected values not counted by the run that made {path}")
            continue
        print(rejection_line(summary) or f"{summary['dataset']}: no value rejected")
    if dataset:
        rejects = read_parquet(results / within_results("clean", dataset=dataset, table="rejects"))
        examples = rejected_examples(rejects)
        if len(examples):
            print(_table_text(examples))
        apart = set_aside_text(rejects["reason"].value_counts())
        print(f"counted apart, not rejected values: {apart or 'none'}")
        if normalised := normalised_text(summary.get("n_words_normalised", 0)):  # the dataset's one summary
            print(normalised)
        print(f"every ledger row: {results / within_results('clean', dataset=dataset, table='rejects')}")
    return 0


def _archive(command: str, directory: Path, cores: int, recompute: bool = False) -> int:
    if command == "verify":
        problems = verify(directory)
    else:
        problems = rebuild(directory, cores, say=lambda text: print(text, flush=True), recompute=recompute)
    for problem in problems:
        print(problem)
    if problems:
        print(f"{command}: {len(problems)} problem(s)")
        return 1
    print(f"{command}: OK" + (", every file matches the MANIFEST" if command == "verify" else ""))
    return 0


def _demo(directory: Path) -> int:
    """The demo sheets (simgold.io.demo, part of the installed package)."""
    for rel, data in generate_demo(directory).items():
        print(f"{directory / rel}\t{len(data)} bytes")
    return 0


def _sizing(args, pairs):
    """How K is chosen or what it reaches: from a pilot dataset's r1 or assumed SDs (None without either)."""
    if args.pilot is None and args.item_sd is None and args.noise_sd is None:
        if args.reliability is not None:
            raise ValueError("--reliability needs --pilot DATASET, or --item-sd and --noise-sd, to size K")
        return None
    r1 = pilot_reliability(args.results, args.pilot) if args.pilot else None
    return size_rating_design(
        len(pairs.where("item")) + len(pairs.where("repeat")),
        args.reliability,
        raters_per_item=args.per_item,
        r1=r1,
        item_sd=args.item_sd,
        noise_sd=args.noise_sd,
        n_raters=args.raters,
        n_anchors=len(pairs.where("anchor")),
        n_repeats=len(pairs.where("repeat")),
        n_attention=len(pairs.where("attention")),
    )


def _formats(args) -> tuple[str, ...]:
    """The file formats a design command was asked for, each once, in the order given."""
    return tuple(dict.fromkeys(args.formats))


def _instructions(args) -> str | None:
    """The text of the instructions file a design command was given, or None for the default."""
    return args.instructions.read_text(encoding="utf-8") if args.instructions else None


def _design_ratings(args) -> int:
    out = args.out or Path("design") / args.name
    try:
        pairs = read_pairs(args.pairs)
        sizing = _sizing(args, pairs)
        template = _instructions(args)
        design = design_ratings(
            pairs,
            name=args.name,
            scale=tuple(args.scale),
            n_raters=args.raters,
            raters_per_item=sizing.raters_per_item if sizing else args.per_item,
            seed=args.seed,
            language=args.language,
            raw_dir=args.raw_dir,
            formats=_formats(args),
            instructions=template,
            tolerance=args.tolerance,
            max_failures=args.max_failures,
            whole_numbers=not args.decimal,
            sizing=sizing,
            design_path=(out / "design.parquet").as_posix(),
        )
    except (OSError, ValueError) as err:
        print(f"simgold design ratings: {err}", file=sys.stderr)
        return 1
    return _write_design(args, design, "ratings", out)


def _card(source: Path, summary, template: str) -> dict:
    """The release card's keys a design knows: how the pairs were chosen (the design) and the
    instructions, each rater's own values shown as <field>."""
    fields = {name: f"<{name}>" for _, name, _, _ in string.Formatter().parse(template) if name}
    pairs = f"The pairs of `{source}`.\n\n" + "\n".join(f"- {line}" for line in summary)
    return {"pairs": pairs, "instructions": fill_instructions(template, fields)}


@dataclass(frozen=True)
class _Written:
    """What ``_write_design`` writes of a design whose entry the command completes."""

    files: dict
    table: object
    dataset: dict
    summary: list


def _write_design(args, design, kind: str, out: Path) -> int:
    """The design's files, design.parquet and config.yaml written, and what to do next said."""
    raw_dir = args.raw_dir or f"raw/{args.name}"
    if kind == "topup":  # a further round's files are read from a folder of their own
        raw_dir += f"/round{args.round}"
    config = config_text(
        {args.name: design.dataset},
        [
            f"simgold design {kind} {getattr(args, 'pairs', None) or getattr(args, 'groups', None) or args.name} "
            f"(seed {args.seed}): the dataset",
            f"that reads the returned files. Put them in {raw_dir}/ as they come back, then run:",
            f"  simgold run --configfile {out / 'config.yaml'}",
        ],
    )
    written = write_design(out, design.files, design.table, config, kind)
    print("\n".join(design.summary))
    print(f"wrote {len(written)} files to {out}/: the raters' files in sheets/, design.parquet, config.yaml")
    extra = [rel for rel in design.files if "/" not in rel]
    if extra:  # files the returned sheets need beside them (the rankings' implied ranks)
        print(f"copy {', '.join(str(out / rel) for rel in extra)} to {raw_dir}/ as well")
    print(f"next: send each rater their file; put the returned files in {raw_dir}/; then")
    print(f"  simgold run --configfile {out / 'config.yaml'}")
    return 0


def _bws_sizing(args, n_items: int):
    """Answers per tuple: given, or for a split-half reliability from a pilot BWS dataset's."""
    if args.reliability is None:
        return args.per_tuple, []
    if args.pilot is None:
        raise ValueError(
            "--reliability needs --pilot DATASET (a finished run's BWS dataset) to size the answers per tuple"
        )
    pilot = pilot_row(args.results, "bws_reliability", args.pilot)
    shr, per_tuple = float(pilot["shr_spearman_sb"]), float(pilot["answers_per_tuple"])
    r1 = checked_r1(single_rater(shr, per_tuple), args.pilot)  # one answer per tuple's reliability
    sizing = size_rating_design(n_items, args.reliability, r1=r1, n_raters=args.raters)
    low, high = sizing.interval
    return sizing.raters_per_item, [
        f"answers per tuple K = {sizing.raters_per_item}: the pilot {args.pilot}'s split-half reliability "
        f"{shr:.3f} at {per_tuple:g} answers per tuple is one answer's r1 = {r1:.3f}; K answers reach "
        f"{args.reliability:g} by Spearman-Brown (as many tuples per item as the pilot's)",
        f"expected split-half reliability {sizing.expected_split_half:.3f}, {sizing.level:.0%} interval "
        f"[{low:.3f}, {high:.3f}] (halves of {sizing.raters_per_item // 2} and "
        f"{sizing.raters_per_item - sizing.raters_per_item // 2} answers per tuple; Fisher's z over {n_items} items)",
    ]


def _design_bws(args) -> int:
    out = args.out or Path("design") / args.name
    try:
        pairs = read_pairs(args.pairs)
        if others := sorted(set(pairs.role) - {"item"}):
            raise ValueError(
                f"{args.pairs}: roles {others} are for rating questionnaires; a BWS design takes pairs only"
            )
        per_tuple, sizing = _bws_sizing(args, len(pairs.words))
        template = _instructions(args)
        design = design_bws(
            list(pairs.words),
            name=args.name,
            k=args.k,
            factor=args.factor,
            n_raters=args.raters,
            answers_per_tuple=per_tuple,
            seed=args.seed,
            formats=_formats(args),
            raw_dir=args.raw_dir or f"raw/{args.name}",
            instructions=template,
            language=args.language,
        )
    except (OSError, ValueError) as err:
        print(f"simgold design bws: {err}", file=sys.stderr)
        return 1
    summary = [*design.summary, *sizing]
    returned = args.formats[0]
    entry = {"description": f"{args.name}: designed with simgold design bws ({returned})", **design.datasets[returned]}
    entry.setdefault("outliers", {"method": "pairwise_sd", "k": 2.0})
    entry["release"] = {"card": _card(args.pairs, summary, template or BWS_INSTRUCTIONS)}
    result = _Written(files=design.files, table=design.table, dataset=entry, summary=summary)
    return _write_design(args, result, "bws", out)


def _design_rankings(args) -> int:
    out = args.out or Path("design") / args.name
    try:
        with args.groups.open(encoding="utf-8-sig", newline="") as handle:
            reader = csv.reader(handle, delimiter="\t" if args.groups.suffix in (".tsv", ".tab") else ",")
            header = [h.strip() for h in next(reader, [])]
            if header[:3] != ["target", "candidate", "category"]:
                raise ValueError(f"line 1: the header is {header!r}; expected target, candidate, category")
            rows = list(reader)  # blank rows too: design_rankings skips them and names the file's rows
        vocabulary = args.vocabulary.read_text(encoding="utf-8-sig").split()
        template = _instructions(args)
        design = design_rankings(
            rows,
            vocabulary,
            name=args.name,
            language=args.language,
            n_random=args.random,
            n_raters=args.raters,
            raters_per_group=args.per_group,
            seed=args.seed,
            formats=_formats(args),
            raw_dir=args.raw_dir or f"raw/{args.name}",
            instructions=template,
            first_row=2,
        )
    except (OSError, ValueError) as err:
        print(f"simgold design rankings: {args.groups}: {err}", file=sys.stderr)
        return 1
    card = _card(args.groups, design.summary, template or RANKING_INSTRUCTIONS)
    entry = {**design.dataset, "release": {"card": card}}
    written = _Written(files=design.files, table=design.table, dataset=entry, summary=list(design.summary))
    return _write_design(args, written, "rankings", out)


def _dataset_entry(config_files: list[Path], dataset: str) -> dict:
    """The dataset's entry as the run saw it: the last of the config files that has it."""
    entry = None
    for path in config_files:
        datasets = (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("datasets") or {}
        entry = datasets.get(dataset, entry)
    if entry is None:
        raise ValueError(f"no dataset {dataset!r} in {', '.join(map(str, config_files))}")
    return entry


def _new_rater_ids(known, count: int) -> list[str]:
    """Ids of raters who join: r13, r14, ... after r01..r12 (new01, ... beside ids of another form)."""
    numbers = [int(r[1:]) for r in known if len(r) > 1 and r[0] == "r" and r[1:].isdigit()]
    if len(numbers) == len(known):
        first = max(numbers, default=0)
        width = max(2, len(str(first + count)))
        return [f"r{j:0{width}d}" for j in range(first + 1, first + count + 1)]
    return [f"new{j:02d}" for j in range(1, count + 1)]


def _design_topup(args) -> int:
    name, results = args.name, args.results
    out = args.out or Path("design") / f"{name}-round{args.round}"
    try:
        entry = _dataset_entry(args.config, name)
        design = (_bws_topup if entry.get("kind") == "bws" else _ratings_topup)(args, entry, name, results)
    except (OSError, ValueError) as err:
        print(f"simgold design topup: {err}", file=sys.stderr)
        return 1
    return _write_design(args, design, "topup", out)


def _ratings_topup(args, entry: dict, name: str, results: Path):
    tables = {
        table: read_parquet(results / within_results(stage, dataset=name, **extra))
        for table, stage, extra in [
            ("items", "clean", {"table": "items"}),
            ("ratings", "clean", {"table": "ratings"}),
            ("gold", "gold", {}),
            ("raters", "agreement_raters", {}),
        ]
    }
    excluded = tables["raters"].loc[tables["raters"]["excluded"].astype(bool), "rater"]
    return design_topup(
        name,
        entry,
        tables["items"],
        tables["ratings"],
        tables["gold"],
        budget=args.budget,
        seed=args.seed,
        excluded=set(excluded),
        new_raters=_new_rater_ids(sorted(set(tables["ratings"]["rater"])), args.new_raters),
        round_number=args.round,
        raw_dir=args.raw_dir,
        formats=_formats(args),
        instructions=_instructions(args),
    )


def _bws_topup(args, entry: dict, name: str, results: Path):
    if not args.raters or not args.per_tuple:
        raise ValueError(f"{name} is a BWS dataset: give the round's --raters R and --per-tuple K")
    return design_bws_topup(
        name,
        entry,
        read_parquet(results / within_results("clean", dataset=name, table="items")),
        read_parquet(results / within_results("bws_scores", dataset=name)),
        budget=args.budget,
        seed=args.seed,
        n_raters=args.raters,
        answers_per_tuple=args.per_tuple,
        k=args.k,
        round_number=args.round,
        raw_dir=args.raw_dir,
        formats=_formats(args),
        language=entry.get("language", "en"),
    )


def execute(args) -> int:
    """Run the command a parsed ``simgold`` command line names (any but ``run``).

    Parameters
    ----------
    args : argparse.Namespace
        What ``simgold.cli.parser()`` parsed; ``args.command`` is one of its commands but ``run``.

    Returns
    -------
    int
        The command's exit status: 0 done, 1 a problem it printed.
    """
    if args.command in ("scores", "agreement"):
        return (_scores if args.command == "scores" else _agreement)(args.results)
    if args.command == "rejects":
        return _rejects(args.results, args.dataset)
    if args.command in ("verify", "rebuild"):
        return _archive(args.command, args.directory, getattr(args, "cores", 2), getattr(args, "recompute", False))
    if args.command == "design":
        return {"ratings": _design_ratings, "bws": _design_bws, "rankings": _design_rankings, "topup": _design_topup}[
            args.design
        ](args)
    return _demo(args.directory)
