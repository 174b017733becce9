"""The files raters fill in: one questionnaire per rater, as an XLSX workbook (an instructions sheet,
then the questions under a frozen header, with data validation on the answer cells) or as a CSV for
an online form.

Both are byte-for-byte reproducible: the workbook's document dates and its zip members' times are
fixed, and the CSV is plain UTF-8 with ``\\n`` line ends.

Examples
--------
>>> rule = AnswerRule.whole_numbers(0, 6)
>>> sheet = Questionnaire("r01", ("position", "word 1", "word 2", "rating"),
...                       ((1, "cat", "dog", None), (2, "car", "bus", None)), ("rating",), rule)
>>> csv_text(sheet).splitlines()[:2]
['position,word 1,word 2,rating', '1,cat,dog,']
>>> xlsx_bytes(sheet, "Rate each pair.", "ratings") == xlsx_bytes(sheet, "Rate each pair.", "ratings")
True
"""

from __future__ import annotations

import csv
import io
import re
import string
import zipfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from openpyxl import Workbook
from openpyxl.styles import Alignment, Font
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.datavalidation import DataValidation

from simgold.io.demo import fixed_time_zip

__all__ = ["AnswerRule", "Questionnaire", "csv_text", "fill_instructions", "rater_names", "write", "xlsx_bytes"]

#: the document date every workbook carries (its creation and last change)
FIXED_DATE = datetime(2026, 1, 1)
_DATE_ELEMENT = re.compile(r"(<dcterms:(?:created|modified)[^>]*>)[^<]*(</dcterms:(?:created|modified)>)")


@dataclass(frozen=True)
class AnswerRule:
    """What an answer cell accepts: the workbook's data validation, and the sentence that says so.

    Parameters
    ----------
    kind : {"whole", "decimal", "list"}
        Whole numbers or any number between ``low`` and ``high``, or one of ``choices``.
    low, high : float, optional
        The bounds of a number (inclusive).
    choices : tuple of str, default ()
        The accepted answers of a ``list``.

    Examples
    --------
    >>> AnswerRule.whole_numbers(0, 6).text
    'a whole number from 0 to 6'
    >>> AnswerRule("list", choices=("1", "2", "3", "4")).text
    'one of 1, 2, 3, 4'
    """

    kind: str
    low: float | None = None
    high: float | None = None
    choices: tuple = ()

    @classmethod
    def whole_numbers(cls, low: float, high: float) -> "AnswerRule":
        """Whole numbers from ``low`` to ``high``.

        Parameters
        ----------
        low, high : float
            The scale's ends.

        Returns
        -------
        AnswerRule
        """
        return cls("whole", low, high)

    @property
    def text(self) -> str:
        """The rule in words, for the instructions and the workbook's error message."""
        if self.kind == "list":
            return "one of " + ", ".join(self.choices)
        lo, hi = (f"{v:g}" for v in (self.low, self.high))
        return f"a whole number from {lo} to {hi}" if self.kind == "whole" else f"a number from {lo} to {hi}"

    def validation(self) -> DataValidation:
        """The workbook's data validation for this rule (the cells are added by the caller).

        Returns
        -------
        openpyxl.worksheet.datavalidation.DataValidation
        """
        if self.kind == "list":
            rule = DataValidation(type="list", formula1='"' + ",".join(self.choices) + '"', allow_blank=True)
        else:
            rule = DataValidation(
                type=self.kind,
                operator="between",
                formula1=f"{self.low:g}",
                formula2=f"{self.high:g}",
                allow_blank=True,
            )
        rule.error, rule.errorTitle = f"Please enter {self.text}.", "Not an answer"
        rule.prompt, rule.promptTitle = f"Enter {self.text}.", "Your answer"
        rule.showErrorMessage = rule.showInputMessage = True
        return rule


@dataclass(frozen=True)
class Questionnaire:
    """One rater's questions: a header, the rows in the order asked, and which columns the rater
    fills in.

    Parameters
    ----------
    rater : str
        The rater's id (the file's name).
    header : tuple of str
        The column names.
    rows : tuple of tuple
        One row per question, in the order asked (``None`` for a cell left to fill in).
    answer_columns : tuple of str
        The columns the rater fills in (validated by ``rule``).
    rule : AnswerRule
        What an answer cell accepts.
    """

    rater: str
    header: tuple
    rows: tuple
    answer_columns: tuple
    rule: AnswerRule


def rater_names(n_raters: int) -> list[str]:
    """The raters' ids: ``r01``, ``r02``, ... (as wide as ``n_raters`` needs, at least two digits).

    Parameters
    ----------
    n_raters : int

    Returns
    -------
    list of str

    Examples
    --------
    >>> rater_names(3), rater_names(120)[-1]
    (['r01', 'r02', 'r03'], 'r120')
    """
    width = max(2, len(str(n_raters)))
    return [f"r{j:0{width}d}" for j in range(1, n_raters + 1)]


def fill_instructions(template: str, fields: dict) -> str:
    """The instructions a rater reads: ``template`` with its ``{name}`` fields filled in.

    Parameters
    ----------
    template : str
        The text, with fields such as ``{rater}``, ``{n_questions}`` and ``{answer}``.
    fields : dict
        The value of every field the template may name.

    Returns
    -------
    str

    Raises
    ------
    ValueError
        A field the template names that ``fields`` does not hold, named with the fields it could use.

    Examples
    --------
    >>> fill_instructions("Hello {rater}: {n_questions} questions.", {"rater": "r01", "n_questions": 3})
    'Hello r01: 3 questions.'
    """
    names = {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}
    unknown = sorted(names - set(fields))
    if unknown:
        raise ValueError(
            f"the instructions template names {', '.join('{' + n + '}' for n in unknown)}; "
            f"the fields it can use are {', '.join('{' + n + '}' for n in sorted(fields))} (write {{{{ for a brace)"
        )
    return template.format_map(fields)


def csv_text(sheet: Questionnaire) -> str:
    """The questionnaire as CSV (for an online form): the header, then one row per question.

    Parameters
    ----------
    sheet : Questionnaire

    Returns
    -------
    str
        UTF-8 text with ``\\n`` line ends; blank answer cells.
    """
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(sheet.header)
    writer.writerows(["" if v is None else v for v in row] for row in sheet.rows)
    return out.getvalue()


def xlsx_bytes(sheet: Questionnaire, instructions: str, sheet_name: str) -> bytes:
    """The questionnaire as an XLSX workbook: an ``instructions`` sheet, then ``sheet_name`` with a
    bold frozen header, the questions, and data validation on every answer cell.

    Parameters
    ----------
    sheet : Questionnaire
    instructions : str
        The instructions, one paragraph per line (``fill_instructions``).
    sheet_name : str
        The questions' sheet (the config that reads the returned files names it).

    Returns
    -------
    bytes
        The workbook; the same arguments always give the same bytes.
    """
    book = Workbook()
    notes = book.active
    notes.title = "instructions"
    for line in instructions.splitlines() or [""]:
        notes.append([line])
    notes.column_dimensions["A"].width = 100
    for (cell,) in notes.iter_rows():
        cell.alignment = Alignment(wrap_text=True, vertical="top")
    questions = book.create_sheet(sheet_name)
    questions.append(list(sheet.header))
    for row in sheet.rows:
        questions.append(list(row))
    for cell in questions[1]:
        cell.font = Font(bold=True)
    questions.freeze_panes = "A2"
    for j, name in enumerate(sheet.header, start=1):
        width = max([len(str(name))] + [len(str(row[j - 1])) for row in sheet.rows if row[j - 1] is not None])
        questions.column_dimensions[get_column_letter(j)].width = min(60, width + 4)
    rule = sheet.rule.validation()
    for name in sheet.answer_columns:
        letter = get_column_letter(sheet.header.index(name) + 1)
        rule.add(f"{letter}2:{letter}{len(sheet.rows) + 1}")
    questions.add_data_validation(rule)
    book.active = 1  # the workbook opens on the questions; the instructions are the first tab
    book.properties.creator = "simgold design"
    return _fixed(book)


def _fixed(book: Workbook) -> bytes:
    """The workbook's bytes with its document dates and its members' zip times fixed."""
    buf = io.BytesIO()
    book.save(buf)
    with zipfile.ZipFile(buf) as archive:
        members = [(name, archive.read(name)) for name in archive.namelist()]
    stamp = FIXED_DATE.strftime("%Y-%m-%dT%H:%M:%SZ")
    return fixed_time_zip(
        [
            (
                name,
                (
                    _DATE_ELEMENT.sub(rf"\g<1>{stamp}\g<2>", data.decode()).encode()
                    if name == "docProps/core.xml"
                    else data
                ),
            )
            for name, data in members
        ]
    )


def write(path: Path, data: bytes | str) -> Path:
    """Write ``data`` to ``path`` (text as UTF-8), making its folder.

    Parameters
    ----------
    path : Path
    data : bytes or str

    Returns
    -------
    Path
        ``path``.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path
