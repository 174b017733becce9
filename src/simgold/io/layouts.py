"""Reader layouts: how a dataset of each kind is laid out in a sheet (docs/methods.md section 1).

:data:`LAYOUTS` maps ``(kind, layout)`` to a :class:`Layout`: the column keys a source of that
layout needs and may take, and the function that finds its value columns. The config checks
(``simgold.io.config``) and the schema's ``kind`` and ``layout`` values derive from it; adding a
layout is one entry here. ``comparisons`` datasets read ag-evaluation files whole (no layout).

Examples
--------
A layout is one entry: the keys it needs, those it may take, and the function that finds its
value columns. Say a file of means laid out like a long sheet, its means in a ``score`` column:

>>> def means_long_columns(table, src, plan, role):
...     plan.values.append((table.column(src["score"], "score"), "mean", None, 0))
>>> LAYOUTS[("means", "long")] = Layout(frozenset({"words", "score"}), frozenset({"attributes"}), means_long_columns)
>>> table = RawTable(["toy.tsv"], ["w1", "w2", "score"], [["cat", "dog", "3.5"]], [[2]], [(0, 1), (0, 2), (0, 3)])
>>> plan = source_plan(table, {"layout": "long", "words": ["w1", "w2"], "score": "score"}, "means")
>>> plan.words, plan.values  # the word columns, and (column, role, rater, slot) of the values
((0, 1), [(2, 'mean', None, 0)])
>>> del LAYOUTS[("means", "long")]

``KINDS``, ``LAYOUT_NAMES`` and ``COLUMN_KEYS`` (and so the config checks and the schema) are
derived when this module is imported: a real layout is a line of the ``LAYOUTS`` dict below.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from simgold.errors import InputError
from simgold.io.patterns import PatternTimeout, compile_pattern, search
from simgold.io.rawtable import RawTable

__all__ = [
    "KINDS",
    "LAYOUTS",
    "BWS_PRESETS",
    "LAYOUT_NAMES",
    "COLUMN_KEYS",
    "ONE_COLUMN_KEYS",
    "Layout",
    "Plan",
    "source_plan",
]


@dataclass
class _Slot:
    """What one item of a row takes from the sheet (a wide two-context sheet makes two per row)."""

    context: int | None = None
    text: int | None = None  # the context paragraph's column
    attrs: list = field(default_factory=list)
    constants: dict = field(default_factory=dict)  # attributes with one value for every item of the slot


@dataclass
class Plan:
    """The columns of one source: words and labels of the items, and the value columns.

    Attributes
    ----------
    words : tuple of int
        The columns of word1 and word2.
    attrs : list
        (name, column, type) of each attribute column.
    slots : list
        The rater slots of a layout whose rating columns are slots.
    values : list
        (column, role, rater id or None, slot) of each value column.
    rater, context, text, category : int or None
        The columns of a long layout's rater id, context number and paragraph, a rankings' category.
    ragged : int or None
        Ragged layouts: ratings in every field from this column on.
    constants : dict
        Attributes with one value for the whole source.
    """

    words: tuple[int, int]
    attrs: list  # (name, column, type)
    slots: list[_Slot]
    values: list = field(default_factory=list)  # (column, role, rater id or None: the row's rater, slot)
    rater: int | None = None  # long layouts: the rater id column
    context: int | None = None  # long two-context sheets: the context number
    text: int | None = None  # long two-context sheets: the context paragraph
    category: int | None = None  # rankings
    ragged: int | None = None  # ragged layouts: ratings in every field from this column on
    constants: dict = field(default_factory=dict)  # attributes with one value for the whole source

    def value_columns(self, width: int) -> set[int]:
        cols = {j for j, *_ in self.values}
        return cols | set(range(self.ragged, width)) if self.ragged is not None else cols

    def label_columns(self, width: int) -> set[int]:
        cols = set(self.words) | {j for _, j, _ in self.attrs}
        for slot in self.slots:
            cols |= {j for _, j, _ in slot.attrs} | ({slot.text} if slot.text is not None else set())
        cols |= {j for j in (self.rater, self.context, self.text, self.category) if j is not None}
        return cols - self.value_columns(width)


def _context_slot(table: RawTable, k: int, ctx: dict, plan: Plan) -> _Slot:
    slot = _Slot(ctx["context"], table.column(ctx["text"], f"contexts[{k}].text"))
    slot.attrs = _attr_columns(table, ctx.get("attributes", {}))
    slot.constants = _attribute_constants(ctx.get("attributes", {}))
    if "raters" in ctx:
        plan.values += [(j, "rating", r, k) for j, r in _rater_columns(table, ctx["raters"], f"contexts[{k}].raters")]
    plan.values += _stats_columns(table, ctx, k)
    return slot


def _stats_columns(table: RawTable, spec: dict, slot: int) -> list:
    return [(table.column(spec[role], role), role, None, slot) for role in ("mean", "sd", "n") if role in spec]


def _check_read_once(table: RawTable, plan: Plan) -> None:
    """A cell read as two values would be counted twice: each value column is read once."""
    seen: dict[int, str] = {}
    for j, role, rater, _ in plan.values:
        what = role if rater is None else f"rater {rater!r}"
        if j in seen or (plan.ragged is not None and j >= plan.ragged):
            other = seen.get(j, "a ragged rating field")
            raise InputError(table.files[0], f"column {table.label(j)!r} is read twice (as {other} and as {what})")
        seen[j] = what


def _check_one_role(table: RawTable, plan: Plan) -> None:
    """A column is a word, an attribute, a rater id, a context or a value column, never two of them:
    a pattern of rater columns that also matches a word column would read the words as ratings,
    ``words: [w1, w1]`` would make items cat/cat."""
    roles: dict[int, str] = {}
    labels = [(j, f"words[{k}]") for k, j in enumerate(plan.words)] + [(j, f"attributes.{n}") for n, j, _ in plan.attrs]
    labels += [(j, key) for j, key in ((plan.rater, "rater"), (plan.context, "context"), (plan.text, "context_text"),
                                       (plan.category, "category")) if j is not None]  # fmt: skip
    for slot in plan.slots:
        labels += [(j, f"contexts.attributes.{n}") for n, j, _ in slot.attrs]
        labels += [(slot.text, "contexts.text")] if slot.text is not None else []
    values = [(j, f"rater {rater!r}" if rater is not None else role) for j, role, rater, _ in plan.values]
    for j, role in labels + values:
        if j in roles and roles[j] != role:
            raise InputError(
                table.files[0],
                f"column {table.label(j)!r} has two roles: {roles[j]} and {role}",
                expected="each column in one role (words, raters, score, rater, attributes, contexts)",
            )
        roles.setdefault(j, role)
    if plan.ragged is not None:
        for j, role in labels:
            if j >= plan.ragged:
                raise InputError(table.files[0], f"column {table.label(j)!r} is {role} and in the ragged ratings")


def _rater_columns(table: RawTable, spec, what: str, names: dict | None = None) -> list[tuple[int, str]]:
    """(column index, rater id) pairs for a wide sheet."""
    if isinstance(spec, str):
        out = _raters_by_pattern(table, spec, what)
    elif isinstance(spec, list):
        idx = [table.column(ref, what) for ref in spec]
        out = [(j, _rater_label(table, j, k)) for k, j in enumerate(idx, start=1)]
    else:
        start = spec["from"]
        end = spec.get("to", table.width)
        for key, position in (("from", start), ("to", end)):
            if position > table.width:
                raise InputError(
                    table.files[0],
                    f"{what}: {key} position {position} does not exist",
                    expected=f"at most {table.width} (the table's columns)",
                )
        out = [(j - 1, _rater_label(table, j - 1, j - start + 1)) for j in range(start, end + 1)]
    if names:
        unknown = set(names) - {rater for _, rater in out}
        if unknown:
            raise InputError(
                table.files[0],
                f"rater_names: no rater {sorted(unknown)[0]!r}",
                expected=f"one of {[r for _, r in out]}",
            )
        out = [(j, names.get(rater, rater)) for j, rater in out]
    seen: dict[str, int] = {}
    for j, rater in out:
        if rater in seen:
            raise InputError(
                table.files[0],
                f"{what}: rater {rater!r} has two columns ({seen[rater] + 1} and {j + 1})",
                column=rater,
                expected="one column per rater",
            )
        seen[rater] = j
    return out


def _raters_by_pattern(table: RawTable, spec: str, what: str) -> list[tuple[int, str]]:
    if table.header is None:
        raise InputError(
            table.files[0], f"{what}: a pattern needs a header", expected="positions for header-less files"
        )
    pattern = compile_pattern(spec, what)  # checked with the config: compiles
    out = []
    for j, name in enumerate(table.header):
        try:
            m = search(pattern, name, what) if name else None
        except PatternTimeout as err:
            raise InputError(table.files[0], f"{what}: {err.reason}", column=name) from None
        if not m:
            continue
        rater = m.group(1) if pattern.groups else name
        if not rater:  # an optional or empty group: a rater without an id would merge with others
            raise InputError(
                table.files[0],
                f"{what}: the capture group of {spec!r} gives column {name!r} an empty rater id",
                column=name,
                expected="a pattern whose group captures a non-empty id, e.g. '^r(\\d+)$'",
            )
        out.append((j, rater))
    if not out:
        raise InputError(
            table.files[0],
            f"{what}: no column matches {spec!r}",
            expected=f"rater columns among {[h for h in table.header if h]}",
        )
    return out


def _rater_label(table: RawTable, j: int, k: int) -> str:
    if table.header is not None and table.header[j]:
        return table.header[j]
    return f"r{k}"


def _attr_columns(table: RawTable, attrs: dict) -> list[tuple[str, int, str]]:
    out = []
    for name, spec in attrs.items():
        if isinstance(spec, dict) and "value" in spec:
            continue  # a constant: _attribute_constants
        ref, typ = (spec["column"], spec.get("type", "string")) if isinstance(spec, dict) else (spec, "string")
        out.append((name, table.column(ref, f"attributes.{name}"), typ))
    return out


def _attribute_constants(attrs: dict) -> dict:
    """The attributes a source gives one value for every item (``{pos: {value: noun}}``), typed.

    Examples
    --------
    >>> _attribute_constants({"pos": {"value": "noun"}, "freq": {"value": 3, "type": "float"}, "rel": "Relation"})
    {'pos': 'noun', 'freq': 3.0}
    """
    casts = {"string": str, "float": float, "int": int}
    return {
        name: casts[spec.get("type", "string")](spec["value"])
        for name, spec in attrs.items()
        if isinstance(spec, dict) and "value" in spec
    }


# --------------------------------------------------------------------------------------------
# the value columns of each layout


def _wide_columns(table: RawTable, src: dict, plan: Plan, role: str) -> None:
    """A column per rater (and mean, sd, n columns)."""
    plan.values += _stats_columns(table, src, 0)
    if "raters" in src:
        raters = _rater_columns(table, src["raters"], "raters", src.get("rater_names"))
        plan.values += [(j, role, rater, 0) for j, rater in raters]


def _ragged_columns(table: RawTable, src: dict, plan: Plan, role: str) -> None:
    """Ratings in every field of a row from a position on (rater k: the k-th of them)."""
    plan.values += _stats_columns(table, src, 0)
    plan.ragged = src["raters"]["from"] - 1


def _long_columns(table: RawTable, src: dict, plan: Plan, role: str) -> None:
    """One row per rating: the rater id, the score (and the context number and paragraph)."""
    plan.rater = table.column(src["rater"], "rater")
    plan.values.append((table.column(src["score"], "score"), role, None, 0))
    plan.context = table.column(src["context"], "context") if "context" in src else None
    plan.text = table.column(src["context_text"], "context_text") if "context_text" in src else None


def _two_context_columns(table: RawTable, src: dict, plan: Plan, role: str) -> None:
    """Each row two items, one per context, with its paragraph and rater (or mean) columns."""
    plan.slots = [_context_slot(table, k, ctx, plan) for k, ctx in enumerate(src["contexts"])]


def _bws_columns(table: RawTable, src: dict, plan: Plan, role: str) -> None:
    """A BWS answer (k items, best, worst) is not a value cell: ``simgold.stages.bws_answers`` reads it."""
    raise InputError(table.files[0], "a bws source is read by simgold.stages.bws_answers, not as value cells")


@dataclass(frozen=True)
class Layout:
    """One layout of one kind: the column keys it needs, those it may also take, and the function
    that adds its value columns to a :class:`Plan` (``role``: ``rating`` or ``rank``).

    Attributes
    ----------
    required : frozenset of str
        The column keys it needs.
    optional : frozenset of str
        Those it may also take.
    columns : callable
        ``columns(table, src, plan, role)`` adds the value columns to the plan.
    """

    required: frozenset[str]
    optional: frozenset[str]
    columns: Callable[[RawTable, dict, Plan, str], None]

    @property
    def allowed(self) -> frozenset[str]:
        return self.required | self.optional


def _layout(required: str, optional: str, columns) -> Layout:
    return Layout(frozenset(required.split()), frozenset(optional.split()), columns)


#: (kind, layout) -> Layout; the order gives the order of the schema's kind and layout values
LAYOUTS: dict[tuple[str, str], Layout] = {
    ("ratings", "wide"): _layout("words raters", "attributes rater_names mean sd n", _wide_columns),
    ("ratings", "long"): _layout("words rater score", "attributes", _long_columns),
    ("ratings", "ragged"): _layout("words raters", "attributes mean sd n", _ragged_columns),
    ("rankings", "wide"): _layout("target candidate raters", "category rater_names attributes", _wide_columns),
    ("rankings", "long"): _layout("target candidate rater score", "category attributes", _long_columns),
    ("contexts", "wide"): _layout("words contexts", "attributes", _two_context_columns),
    ("contexts", "long"): _layout("words context rater score", "attributes context_text", _long_columns),
    ("means", "wide"): _layout("words mean", "attributes sd n", _wide_columns),
    # one row per Best-Worst Scaling answer: its k items, the best and the worst (stages.bws_answers)
    ("bws", "wide"): _layout("items best worst", "rater tuple attributes", _bws_columns),
}
#: a bws source's ``preset``: the keys of a known export (keys the source gives beside it win);
#: config/README.md describes each export column by column
BWS_PRESETS: dict[str, dict] = {
    # Kiritchenko & Mohammad's BWS scripts' CSV: Item1..Item4, BestItem, WorstItem (the items themselves)
    "kiritchenko_mohammad": {
        "items": ["Item1", "Item2", "Item3", "Item4"],
        "best": "BestItem",
        "worst": "WorstItem",
        "choice": "item",
    },
    # Label Studio's CSV or JSON-MIN export of the labeling config simgold-bws (item1..item4, Choices
    # best and worst over the positions 1..4)
    "label_studio": {
        "items": ["item1", "item2", "item3", "item4"],
        "best": "best",
        "worst": "worst",
        "choice": "position",
        "rater": "annotator",
        "tuple": "id",
    },
    # Potato's CSV or TSV export (annotated_instances.tsv) of the bws scheme named bws, its instances'
    # text the k items joined by " | "; best and worst are letters A, B, ...
    "potato": {
        "items": {"column": "displayed_text", "split": " | "},
        "best": "bws:::best",
        "worst": "bws:::worst",
        "choice": "letter",
        "rater": "user",
        "tuple": "instance_id",
    },
}
#: every kind of dataset; comparisons (ag-evaluation files) have no layout
KINDS = (*dict.fromkeys(kind for kind, _ in LAYOUTS), "comparisons")
LAYOUT_NAMES = tuple(dict.fromkeys(layout for _, layout in LAYOUTS))
#: every key of a source that names columns
COLUMN_KEYS = frozenset().union(*(layout.allowed for layout in LAYOUTS.values()))
#: the keys that name one column each (words and raters name several; attributes and contexts hold
#: keys of their own; rater_names names raters, not columns; a bws source's items name k columns or
#: pairs of them), in the order the config checks them
ONE_COLUMN_KEYS = tuple(sorted(COLUMN_KEYS - {"words", "raters", "attributes", "contexts", "rater_names", "items"}))


def source_plan(table: RawTable, src: dict, kind: str) -> Plan:
    """The columns of one source: its words and labels, and its value columns by its layout.

    Parameters
    ----------
    table : RawTable
        The source's raw table.
    src : dict
        The source's resolved config.
    kind : str
        The dataset's kind.

    Returns
    -------
    Plan
        Its columns.
    """
    role = "rank" if kind == "rankings" else "rating"
    attrs = _attr_columns(table, src.get("attributes", {}))
    keys = ("target", "candidate") if kind == "rankings" else None
    words = (
        tuple(table.column(src[k], k) for k in keys) if keys else tuple(table.column(r, "words") for r in src["words"])
    )
    out = Plan(words, attrs, [_Slot()], constants=_attribute_constants(src.get("attributes", {})))
    if "category" in src:
        out.category = table.column(src["category"], "category")
    LAYOUTS[(kind, src["layout"])].columns(table, src, out, role)
    _check_read_once(table, out)
    _check_one_role(table, out)
    join = src["extra_fields"].get("join") if isinstance(src.get("extra_fields"), dict) else None
    if join is not None and table.column(join, "extra_fields.join") not in out.label_columns(table.width):
        raise InputError(
            table.files[0],
            f"extra_fields.join: column {join!r} holds values, not words",
            expected="a word or attribute column (the value that held the separator)",
        )
    return out
