"""Readers: encodings, line endings, separators, headers, spreadsheets, and their error messages."""

from __future__ import annotations

import datetime as dt
import io
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import openpyxl
import pytest

from simgold.errors import InputError
from simgold.io.demo import ods_bytes, xlsx_bytes
from simgold.io.rawtable import ABSENT
from simgold.io.readers import read_source_table

SRC = Path(__file__).resolve().parents[2] / "src"


def read(tmp_path, data: bytes | str, name="f.txt", **src):
    path = tmp_path / name
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return read_source_table({"path": name, **src}, base_dir=tmp_path)


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_line_endings(tmp_path, newline):
    t = read(tmp_path, newline.join(["a\tb\tr1", "x\ty\t1", "z\tw\t2"]) + newline)
    assert t.header == ["a", "b", "r1"]
    assert t.rows == [["x", "y", "1"], ["z", "w", "2"]]
    assert t.lines == [[2, 3]]


def test_no_final_newline_and_blank_lines_keep_row_numbers(tmp_path):
    t = read(tmp_path, "a,b,r1\n\nx,y,1\n   \nz,w,2")
    assert t.rows == [["x", "y", "1"], ["z", "w", "2"]]
    assert t.lines == [[3, 5]]


def test_utf8_bom_is_dropped(tmp_path):
    t = read(tmp_path, b"\xef\xbb\xbfword1;word2;s\r\nhelppo;vaikea;0,5\r\n")
    assert t.header == ["word1", "word2", "s"] and t.separator == ";"


def test_cp1252(tmp_path):
    data = "Wort 1;Wort 2;Bewertung\r\nStraße;Weg;7,5\r\n".encode("cp1252")
    t = read(tmp_path, data, encoding="cp1252")
    assert t.rows == [["Straße", "Weg", "7,5"]]


def test_cp1252_declared_as_utf8_names_line_and_byte(tmp_path):
    data = "a;b;s\r\nok;fine;1\r\nStraße;Weg;7\r\n".encode("cp1252")
    with pytest.raises(InputError) as err:
        read(tmp_path, data)
    msg = str(err.value)
    assert "f.txt" in msg and "row 3" in msg and "0xdf" in msg and "cp1252" in msg


def test_utf16_without_declaration(tmp_path):
    with pytest.raises(InputError, match="UTF-16"):
        read(tmp_path, "a,b\n".encode("utf-16"))


@pytest.mark.parametrize(
    "text,sep",
    [
        ("a\tb,c\tr\nx\ty,z\t1\n", "\t"),  # tabs win even with commas inside fields (CoSimLex)
        ("a;b;r\nx;y;1,5\n", ";"),
        ("a,b,r\nx,y,1\n", ","),
        ("a|b|r\nx|y|1\n", "|"),
        ("a b r\nx y 1\n", "whitespace"),
    ],
)
def test_separator_sniffing(tmp_path, text, sep):
    assert read(tmp_path, text).separator == sep


def test_tsv_extension_means_tab_even_with_other_candidates(tmp_path):
    assert read(tmp_path, "a;x\tb\nc;d\te\n", name="f.tsv").separator == "\t"


def test_unsniffable_separator_asks_for_sep(tmp_path):
    with pytest.raises(InputError, match="sep"):
        read(tmp_path, "a b\nx y z\n")


def test_whitespace_separator_strips_tabs_and_nbsp(tmp_path):
    t = read(tmp_path, "word1 word2 score\nhamster party 1\t\nfeline whiskers 6\u00a0\n", sep="whitespace")
    assert t.rows == [["hamster", "party", "1"], ["feline", "whiskers", "6"]]


def test_quoted_fields(tmp_path):
    t = read(tmp_path, 'a,b,c\n"x, y",z,"say ""hi"""\n')
    assert t.rows == [["x, y", "z", 'say "hi"']]


def test_unbalanced_quote_is_an_error_with_row(tmp_path):
    with pytest.raises(InputError, match="row 2"):
        read(tmp_path, 'a,b,c\nx,"y,1\n', sep=",")


def test_quoting_none_keeps_quotes(tmp_path):
    t = read(tmp_path, 'a\tb\n"x\ty\n', quoting="none")
    assert t.rows == [['"x', "y"]]


def test_skip_rows_comment_and_headerless(tmp_path):
    t = read(tmp_path, "# comment\n# Word 1\tWord 2\tmean\nlove\tsex\t6.77\n", comment="#", header=False)
    assert t.header is None and t.rows == [["love", "sex", "6.77"]] and t.lines == [[3]]
    t = read(tmp_path, "word 1\tword 2\tscore\nskroman posramljen 1.67\n", skip_rows=1, header=False, sep="whitespace")
    assert t.rows == [["skroman", "posramljen", "1.67"]]


def test_short_rows_are_absent_not_empty(tmp_path):
    t = read(tmp_path, "a\tb\tr1\tr2\nx\ty\t1\n")
    assert t.cell(0, 2) == "1" and t.cell(0, 3) is ABSENT


def test_column_lookup_errors(tmp_path):
    t = read(tmp_path, "w;w;s\nx;y;1\n")
    with pytest.raises(InputError, match="ambiguous"):
        t.column("w", "words")
    with pytest.raises(InputError, match="no column named 'v'"):
        t.column("v", "words")
    with pytest.raises(InputError, match="position 9"):
        t.column(9, "words")
    assert t.column(2, "words") == 1


def test_joined_files_must_align(tmp_path):
    (tmp_path / "a.tsv").write_text("x\ty\n")
    (tmp_path / "b.tsv").write_text("1\t2\n3\t4\n")
    with pytest.raises(InputError, match="same number of data rows"):
        read_source_table({"path": ["a.tsv", "b.tsv"], "header": False}, base_dir=tmp_path)


def test_joined_files_keep_each_cells_origin(tmp_path):
    (tmp_path / "a.tsv").write_text("x\ty\t3\n\nu\tv\t1\n")
    (tmp_path / "b.tsv").write_text("1\t2\n\n0\t1\n")
    t = read_source_table({"path": ["a.tsv", "b.tsv"], "header": False}, base_dir=tmp_path)
    assert t.rows[1] == ["u", "v", "1", "0", "1"]
    assert t.where(1, 4) == ("b.tsv", 3, "#2")
    assert t.where(1, 0) == ("a.tsv", 3, "#1")
    assert t.raw_cells == 10


def test_joined_files_with_a_blank_line_in_one_are_not_paired(tmp_path):
    """A blank line in one file only would pair every later row with the wrong one."""
    (tmp_path / "a.tsv").write_text("x\ty\t3\nu\tv\t1\nw\tz\t2\n")
    (tmp_path / "b.tsv").write_text("1\t2\n\n0\t1\n4\t4\n")
    with pytest.raises(InputError) as err:
        read_source_table({"path": ["a.tsv", "b.tsv"], "header": False}, base_dir=tmp_path)
    assert str(err.value) == (
        "b.tsv, row 2: a blank or comment line where a.tsv has a data row; expected line-aligned files with"
        " their data rows on the same lines (nothing is paired)"
    )


def test_joined_files_with_a_quoted_line_break_in_one_name_the_spanning_record(tmp_path):
    """A quoted field spanning two lines moves the later rows of its file one line down: the error
    names the record that spans, not a blank line that is not there (in either file's order)."""
    (tmp_path / "words.tsv").write_text('cat\tdog\n"car\nlorry"\tbus\nsun\tmoon\n')
    (tmp_path / "scores.tsv").write_text("1\t2\n3\t4\n5\t6\n")
    expected = (
        "words.tsv, row 2: a quoted field spans several lines (a line break inside quotes), so the rows after it"
        " no longer sit on the lines of scores.tsv's rows; expected line-aligned files with one record per line:"
        " remove the line break inside the quotes"
    )
    for order in (["words.tsv", "scores.tsv"], ["scores.tsv", "words.tsv"]):
        with pytest.raises(InputError) as err:
            read_source_table({"path": order, "header": False}, base_dir=tmp_path)
        assert str(err.value) == expected
    (tmp_path / "scores.tsv").write_text("1\t2\n3\t4\n5\t6\n7\t8\n")  # one row per line of words.tsv
    with pytest.raises(InputError, match=r"^scores.tsv: has 4 data rows but words.tsv has 3 \(words.tsv row 2 starts"):
        read_source_table({"path": ["words.tsv", "scores.tsv"], "header": False}, base_dir=tmp_path)


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match="the path does not exist"):
        read_source_table({"path": "nope.csv"}, base_dir=tmp_path)


def test_empty_file(tmp_path):
    with pytest.raises(InputError, match="no data"):
        read(tmp_path, b"")


def test_xlsx_declared_as_text(tmp_path):
    with pytest.raises(InputError, match="format: xlsx"):
        read(tmp_path, xlsx_bytes([["a", "b"]], "s"), name="f.csv")


# -------------------------------------------------------------------------------- spreadsheets


def test_xlsx_written_by_openpyxl(tmp_path):
    """A workbook as Excel-like tools write it (shared strings, numbers, a date, empty cells)."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Svar"
    ws.append(["Survey title"])
    ws.append(["Ord 1", "Ord 2", "r1", "r2", "r3"])
    ws.append(["stor", "enorm", 5, None, 4.5])
    ws.append([])
    ws.append(["glad", "lykkelig", dt.datetime(2026, 3, 1), "nan", True])
    wb.save(tmp_path / "s.xlsx")
    t = read_source_table({"path": "s.xlsx", "skip_rows": 1, "sheet": "Svar"}, base_dir=tmp_path)
    assert t.header == ["Ord 1", "Ord 2", "r1", "r2", "r3"]
    assert t.lines == [[3, 5]]
    assert t.rows[0] == ["stor", "enorm", 5, "", 4.5]
    assert t.rows[1][2] == dt.datetime(2026, 3, 1) and t.rows[1][3:] == ["nan", True]


def test_xlsx_unknown_sheet(tmp_path):
    (tmp_path / "s.xlsx").write_bytes(xlsx_bytes([["a", "b"], ["x", "y"]], "Ark1"))
    with pytest.raises(InputError, match="no sheet named 'Svar'"):
        read_source_table({"path": "s.xlsx", "sheet": "Svar"}, base_dir=tmp_path)


def test_truncated_xlsx(tmp_path):
    data = xlsx_bytes([["a", "b", "r"], ["x", "y", 1]], "s")
    (tmp_path / "s.xlsx").write_bytes(data[: len(data) // 2])
    with pytest.raises(InputError, match="s.xlsx.*truncated"):
        read_source_table({"path": "s.xlsx"}, base_dir=tmp_path)


def test_old_xls_is_refused_with_advice(tmp_path):
    (tmp_path / "s.xls").write_bytes(b"\xd0\xcf\x11\xe0")
    with pytest.raises(InputError, match=r"\.xlsx or \.ods"):
        read_source_table({"path": "s.xls"}, base_dir=tmp_path)


def test_ods(tmp_path):
    rows = [
        ["word1", "word2", "context1", "a1"],
        ["bank", "shore", "on the bank", 7],
        [None],
        ["bat", "club", "x", 2.5],
    ]
    (tmp_path / "c.ods").write_bytes(ods_bytes(rows, "ratings"))
    t = read_source_table({"path": "c.ods"}, base_dir=tmp_path)
    assert t.header == ["word1", "word2", "context1", "a1"]
    assert t.rows == [["bank", "shore", "on the bank", 7], ["bat", "club", "x", 2.5]]
    assert t.lines == [[2, 4]]


def test_ods_with_repeated_cells_and_rows(tmp_path):
    """LibreOffice compresses runs of equal cells and rows; each repetition is a real cell."""
    content = (
        '<?xml version="1.0" encoding="UTF-8"?><office:document-content '
        'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
        'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
        'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2">'
        '<office:body><office:spreadsheet><table:table table:name="S">'
        "<table:table-row>"
        '<table:table-cell office:value-type="string"><text:p>w1</text:p></table:table-cell>'
        '<table:table-cell office:value-type="string"><text:p>w2</text:p></table:table-cell>'
        '<table:table-cell office:value-type="string"><text:p>r1</text:p></table:table-cell>'
        '<table:table-cell office:value-type="string"><text:p>r2</text:p></table:table-cell>'
        "</table:table-row>"
        '<table:table-row table:number-rows-repeated="2">'
        '<table:table-cell office:value-type="string" table:number-columns-repeated="2"><text:p>x</text:p></table:table-cell>'
        '<table:table-cell office:value-type="float" office:value="3" table:number-columns-repeated="2"><text:p>3</text:p></table:table-cell>'
        "</table:table-row>"
        '<table:table-row table:number-rows-repeated="1000"><table:table-cell table:number-columns-repeated="1024"/></table:table-row>'
        "</table:table></office:spreadsheet></office:body></office:document-content>"
    )
    import io
    import zipfile

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("mimetype", "application/vnd.oasis.opendocument.spreadsheet")
        zf.writestr(
            "META-INF/manifest.xml",
            '<?xml version="1.0" encoding="UTF-8"?><manifest:manifest '
            'xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0">'
            '<manifest:file-entry manifest:full-path="/" '
            'manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/>'
            '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>'
            "</manifest:manifest>",
        )
        zf.writestr("content.xml", content)
    (tmp_path / "r.ods").write_bytes(buf.getvalue())
    t = read_source_table({"path": "r.ods"}, base_dir=tmp_path)
    assert t.rows == [["x", "x", 3, 3], ["x", "x", 3, 3]]
    assert t.lines == [[2, 3]]


# -------------------------------------------------------------------------------- what the reader counts and notes


def test_every_non_blank_cell_is_counted_and_what_is_not_data_noted(tmp_path):
    t = read(tmp_path, "Title line\n# comment\nw1,w2,r1\nx,y,1\n\n,, \nz,w,2\n", skip_rows=1, comment="#")
    assert t.raw_cells == 1 + 1 + 3 + 3 + 0 + 0 + 3  # a line of empty fields has no cell
    assert [(n.row, n.label, n.raw, n.reason) for n in t.notes] == [
        (1, "(line)", "Title line", "ignored_row"),
        (2, "(line)", "# comment", "ignored_row"),
        (3, "w1", "w1", "ignored_row"),
        (3, "w2", "w2", "ignored_row"),
        (3, "r1", "r1", "ignored_row"),
    ]
    assert t.lines == [[4, 6, 7]]


def test_a_quoted_line_break_is_kept_even_across_a_blank_line(tmp_path):
    t = read(tmp_path, 'w1,w2,note\nx,y,"one\n\ntwo"\nz,w,three\n', sep=",")
    assert t.rows == [["x", "y", "one\n\ntwo"], ["z", "w", "three"]]
    assert t.lines == [[2, 5]] and "span several lines (first at row 2)" in t.messages[0]


def test_rows_with_extra_fields_are_moved_to_the_notes(tmp_path):
    t = read(tmp_path, "w1,w2,r1\nsalt,pepper, ground,5\nx,y,1,,\n", sep=",")
    assert t.rows == [["x", "y", "1", "", ""]] and t.width == 5  # trailing empty fields are no values
    assert {(n.row, n.reason) for n in t.notes if n.reason != "ignored_row"} == {(2, "extra_fields")}
    t = read(tmp_path, "w1,w2,r1\nsalt,pepper, ground,5\n", sep=",", extra_fields={"join": "w2"})
    assert t.rows == [["salt", "pepper, ground", "5"]] and t.joined == 1


def test_ragged_rows_are_never_extra_fields(tmp_path):
    t = read(tmp_path, "a\tb\t1\nc\td\t1\t2\t3\n", header=False, layout="ragged")
    assert t.rows == [["a", "b", "1"], ["c", "d", "1", "2", "3"]] and not t.notes


def test_a_hidden_first_sheet_is_skipped_and_the_log_says_so(tmp_path):
    wb = openpyxl.Workbook()
    wb.active.title = "Old"
    wb.active.append(["junk"])
    wb.active.sheet_state = "hidden"
    wb.create_sheet("Svar").append(["w1", "w2"])
    wb["Svar"].append(["x", "y"])
    wb.active = 1
    wb.save(tmp_path / "s.xlsx")
    t = read_source_table({"path": "s.xlsx"}, base_dir=tmp_path)
    assert t.header == ["w1", "w2"] and t.rows == [["x", "y"]]
    assert t.messages == ["s.xlsx: read sheet 'Svar' (2 of 2); hidden sheets not read: ['Old']"]
    assert read_source_table({"path": "s.xlsx", "sheet": "Old", "header": False}, base_dir=tmp_path).rows == [["junk"]]


def test_a_sheet_beyond_the_spreadsheet_limits_is_refused_before_expanding(tmp_path, monkeypatch):
    import simgold.io.sheets as sheets

    monkeypatch.setattr(sheets, "MAX_CELLS", 10)
    (tmp_path / "s.xlsx").write_bytes(
        xlsx_bytes([["w1", "w2", "r1"], ["a", "b", 1], ["c", "d", 2], ["e", "f", 3]], "s")
    )
    with pytest.raises(InputError, match="expands to more than 10 cells \\(at row 4\\)"):
        read_source_table({"path": "s.xlsx"}, base_dir=tmp_path)


def test_a_utf8_file_declared_in_a_code_page_is_refused(tmp_path):
    with pytest.raises(InputError) as err:
        read(tmp_path, "w1;w2;s\nok;fine;1\nStraße;Weg;7\n", encoding="cp1252")
    assert str(err.value) == (
        "f.txt, row 3: the file is UTF-8 but is declared cp1252: 'Straße' would be read as 'StraÃŸe'; expected"
        " encoding: utf-8 (the default) for this file"
    )
    assert read(tmp_path, "w1;w2;s\nok;fine;1\n", encoding="cp1252").rows == [["ok", "fine", "1"]]  # ASCII


@pytest.mark.parametrize("path", ["pkg:gensim/../../../x", "pkg:gensim//etc/passwd", "pkg:../x"])
def test_pkg_paths_stay_inside_their_package(path):
    from simgold.io.readers import resolve_path

    with pytest.raises(InputError):
        resolve_path(path)
    inside = resolve_path("pkg:gensim/test/../test/test_data/wordsim353.tsv")
    assert inside.is_file()


# ---- issue 30: the file's own line ending, what a file is, spreadsheet cells that are no words


def test_a_cr_inside_a_line_of_an_lf_file_does_not_cut_the_row(tmp_path):
    """The row keeps its cells and the rows after it their numbers, in every separator mode."""
    for sep, glue in ((",", ","), ("whitespace", " "), ("\t", "\t")):
        lines = [["w1", "w2", "r1"], ["ca\rt", "dog", "5"], ["car", "bus", "4"]]
        t = read(tmp_path, "".join(glue.join(line) + "\n" for line in lines), sep=sep)
        assert t.rows == lines[1:], sep
        assert t.lines == [[2, 3]]


def test_crlf_and_lf_lines_mix_and_a_doubled_cr_ends_one_line(tmp_path):
    t = read(tmp_path, "w1,w2,r1\r\ncat,dog,5\ncar,bus,4\r\r\nsun,moon,2\r\n")
    assert t.rows == [["cat", "dog", "5"], ["car", "bus", "4"], ["sun", "moon", "2"]]
    assert t.lines == [[2, 3, 4]]


def test_whitespace_separator_does_not_split_at_a_line_separator(tmp_path):
    t = read(tmp_path, "w1 w2 r1\nsun\u2028x moon 2\n", sep="whitespace")
    assert t.rows == [["sun\u2028x", "moon", "2"]]


@pytest.mark.parametrize(
    "text, codec, kind",
    [
        ("w1,w2\ncat,dog\n", "utf-16-be", "utf-16-be"),
        ("w1,w2\ncat,dog\n", "utf-32-be", "utf-32-be"),
        ("w1,w2\ncat,dog\n", "utf-32-le", "utf-32-le"),
        ("w1,w2\nkočka,pes\n", "utf-8", None),
        ("w1,w2\nкошка,собака\n", "cp1251", None),
    ],
)
def test_file_kind_sees_utf16_and_utf32_without_a_bom(text, codec, kind):
    from simgold.io.sniff import file_kind

    assert file_kind(text.encode(codec)) == kind


def test_utf16_declared_as_such_is_read(tmp_path):
    t = read(tmp_path, "w1,w2,r1\ncat,dog,5\n".encode("utf-16-le"), encoding="utf-16-le")
    assert t.rows == [["cat", "dog", "5"]]


def test_xlsx_formulas_without_a_cached_value_are_named(tmp_path):
    """openpyxl writes formulas without their values, as a script would: read as empty, and said."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["w1", "w2", "r1"])
    for k in range(40):
        ws.append([f"a{k}", f"b{k}", f"=1+{k}" if k % 3 == 0 else k])
    wb.save(tmp_path / "f.xlsx")
    t = read_source_table({"path": "f.xlsx"}, base_dir=tmp_path)
    assert [t.cell(i, 2) for i in range(4)] == [ABSENT, 1, 2, ABSENT]
    assert t.messages[-1].endswith(
        "f.xlsx: 14 formula cell(s) have no cached value (first: C2) and are read as empty: the file was saved"
        " without calculating (open and save it in a spreadsheet program)"
    )


def test_uncached_formulas_are_counted_across_block_boundaries(tmp_path, monkeypatch):
    """The sheet's XML is scanned in blocks: with blocks of 100 bytes every cell is cut somewhere,
    and each formula is still counted once (14, counted from the sheet written here)."""
    import simgold.io.sheets as sheets

    wb = openpyxl.Workbook()
    ws = wb.active
    for k in range(40):
        ws.append([f"a{k}", f"=1+{k}" if k % 3 == 0 else k])
    wb.save(tmp_path / "f.xlsx")
    monkeypatch.setattr(sheets, "_BLOCK", 100)
    found = sheets._uncached_formulas(tmp_path / "f.xlsx", "xl/worksheets/sheet1.xml")
    assert found == [f"B{k + 1}" for k in range(0, 40, 3)]


# -------------------------------------------------------------------------------- ODS, streamed (issue 30)

ODS_NAMESPACES = " ".join(
    f'xmlns:{prefix}="urn:oasis:names:tc:opendocument:xmlns:{prefix}:1.0"'
    for prefix in ("office", "table", "text", "style")
)


def ods_file(tmp_path, rows: str, name="t.ods", styles="", sheets=None) -> Path:
    """An ODS file whose sheet S holds ``rows`` (table-row elements, written by hand)."""
    sheets = sheets or f'<table:table table:name="S">{rows}</table:table>'
    content = (
        f'<?xml version="1.0" encoding="UTF-8"?><office:document-content {ODS_NAMESPACES} '
        'xmlns:xlink="http://www.w3.org/1999/xlink" office:version="1.2">'
        f"<office:automatic-styles>{styles}</office:automatic-styles>"
        f"<office:body><office:spreadsheet>{sheets}</office:spreadsheet></office:body></office:document-content>"
    )
    path = tmp_path / name
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(zipfile.ZipInfo("mimetype"), "application/vnd.oasis.opendocument.spreadsheet")  # stored, first
        zf.writestr("content.xml", content)
    return path


def cell(paragraphs: str, attributes='office:value-type="string"') -> str:
    return f"<table:table-cell {attributes}>{paragraphs}</table:table-cell>"


def test_ods_text_keeps_spaces_tabs_line_breaks_and_nested_spans(tmp_path):
    """odfpy's DOM read "ice<text:s/>cream" as "icecream" and "cat<text:line-break/>feline" as "catfeline"."""
    texts = {
        "<text:p>ice<text:s/>cream</text:p>": "ice cream",
        '<text:p><text:s text:c="2"/>a<text:s text:c="3"/>b<text:s/></text:p>': "  a   b ",
        "<text:p>ice<text:tab/>cream</text:p>": "ice\tcream",
        "<text:p>cat<text:line-break/>feline</text:p>": "cat\nfeline",
        "<text:p>one</text:p><text:p/><text:p>three</text:p>": "one\n\nthree",
        '<text:p>a<text:span text:style-name="T1">b<text:a xlink:href="https://x.org">c<text:s/>d</text:a>e'
        "</text:span>f<text:span>g</text:span></text:p>": "abc defg",
        "<office:annotation><text:p>a comment</text:p></office:annotation><text:p>word</text:p>": "word",
        '<text:p>ta<text:soft-page-break/>ble<text:s text:c="1"/></text:p>': "table ",
    }
    rows = "".join(f"<table:table-row>{cell(xml)}</table:table-row>" for xml in texts)
    t = read_source_table({"path": "t.ods", "header": False}, base_dir=ods_file(tmp_path, rows).parent)
    assert t.rows == [[text] for text in texts.values()]


def row_of(*cells: str) -> str:
    return "<table:table-row>" + "".join(cells) + "</table:table-row>"


def test_ods_rows_in_groups_covered_cells_and_typed_values(tmp_path):
    header = row_of(*(cell(f"<text:p>{name}</text:p>") for name in ("w1", "w2", "r1")))
    merged = row_of(
        cell("<text:p>cat</text:p>", 'office:value-type="string" table:number-columns-spanned="2"'),
        cell("<text:p>dog</text:p>").replace("table-cell", "covered-table-cell"),  # hidden under the merge
        cell("<text:p>7</text:p>", 'office:value-type="float" office:value="7"'),
    )
    typed = row_of(
        cell("<text:p>50%</text:p>", 'office:value-type="percentage" office:value="0.5"'),
        cell("<text:p>TRUE</text:p>", 'office:value-type="boolean" office:boolean-value="true"'),
        cell("<text:p>01/03/26</text:p>", 'office:value-type="date" office:date-value="2026-03-01"'),
        cell("<text:p>1e3</text:p>", 'office:value-type="currency" office:value="1E3"'),
        cell("<text:p>-4</text:p>", 'office:value-type="float" office:value="-4"'),
    )
    rows = (
        '<table:table-column table:number-columns-repeated="3"/>'
        f"<table:table-header-rows>{header}</table:table-header-rows>"
        f"<table:table-row-group>{merged}{typed}</table:table-row-group>"
    )
    t = read_source_table({"path": "t.ods"}, base_dir=ods_file(tmp_path, rows).parent)
    assert t.header == ["w1", "w2", "r1", "", ""]
    assert t.rows == [["cat", "dog", 7], [0.5, True, dt.datetime(2026, 3, 1), 1000.0, -4]]
    assert type(t.rows[0][2]) is int and t.lines == [[2, 3]]


def test_a_typed_ods_cell_without_its_value_is_read_as_its_text(tmp_path):
    """No TypeError: cleaning parses the text or rejects it with a reason."""
    typed = [
        ('office:value-type="float"', "<text:p>seven</text:p>", "seven"),
        ('office:value-type="percentage" office:value="12%"', "<text:p>12%</text:p>", "12%"),
        ('office:value-type="currency" office:value="1_000"', "<text:p>1000</text:p>", "1000"),
        ('office:value-type="date"', "<text:p>1.4.</text:p>", "1.4."),
        ('office:value-type="date" office:date-value="yesterday"', "<text:p>yesterday</text:p>", "yesterday"),
        ('office:value-type="boolean"', "<text:p>WAHR</text:p>", "WAHR"),
        ('office:value-type="float"', "", ""),  # no text: empty
    ]
    rows = "".join(
        f"<table:table-row>{cell('<text:p>x</text:p>')}{cell(xml, attributes)}</table:table-row>"
        for attributes, xml, _ in typed
    )
    t = read_source_table({"path": "t.ods", "header": False}, base_dir=ods_file(tmp_path, rows).parent)
    assert t.rows == [["x", text] if text else ["x"] for _, _, text in typed]


def test_ods_formulas_without_cached_results_are_read_as_empty_and_the_log_says_so(tmp_path):
    rows = (
        f"<table:table-row>{cell('<text:p>w1</text:p>')}{cell('<text:p>r1</text:p>')}{cell('<text:p>r2</text:p>')}"
        "</table:table-row><table:table-row>"
        f"{cell('<text:p>cat</text:p>')}"
        '<table:table-cell table:formula="of:=1+1" table:number-columns-repeated="2"/></table:table-row>'
        f"<table:table-row>{cell('<text:p>dog</text:p>')}"
        '<table:table-cell table:formula="of:=1+1" office:value-type="float" office:value="2"><text:p>2</text:p>'
        '</table:table-cell><table:table-cell table:formula="of:=[.B3]" office:value-type="float"/>'
        "</table:table-row>"
    )
    t = read_source_table({"path": "t.ods"}, base_dir=ods_file(tmp_path, rows).parent)
    assert t.rows == [["cat"], ["dog", 2]]
    assert t.messages == [
        "t.ods: read sheet 'S' (1 of 1)",
        "t.ods: 3 formula cell(s) have no cached value and are read as empty: the file was saved without"
        " calculating (open and save it in a spreadsheet program)",
    ]


@pytest.mark.parametrize(
    "row,message",
    [
        (
            '<table:table-row table:number-rows-repeated="-2">',
            "t.ods, row 2: the repeat count table:number-rows-repeated is not a count (value '-2'); expected a"
            " positive whole number",
        ),
        (
            '<table:table-row table:number-rows-repeated="0">',
            "t.ods, row 2: the repeat count table:number-rows-repeated is not a count (value '0'); expected a"
            " positive whole number",
        ),
        (
            '<table:table-row table:number-rows-repeated="2.5">',
            "t.ods, row 2: the repeat count table:number-rows-repeated is not a count (value '2.5'); expected a"
            " positive whole number",
        ),
    ],
)
def test_ods_row_repeat_counts_that_are_not_counts_are_refused(tmp_path, row, message):
    rows = f"<table:table-row>{cell('<text:p>w1</text:p>')}</table:table-row>{row}{cell('<text:p>x</text:p>')}"
    rows += "</table:table-row>"
    with pytest.raises(InputError) as err:
        read_source_table({"path": "t.ods"}, base_dir=ods_file(tmp_path, rows).parent)
    assert str(err.value) == message


@pytest.mark.parametrize("count", ["0", "-1", "", "three", "\u0663"])  # U+0663: int() would read it as 3
def test_ods_cell_repeat_counts_that_are_not_counts_are_refused(tmp_path, count):
    rows = (
        f"<table:table-row>{cell('<text:p>a</text:p>')}"
        f'<table:table-cell table:number-columns-repeated="{count}"/>{cell("<text:p>b</text:p>")}</table:table-row>'
    )
    with pytest.raises(InputError) as err:
        read_source_table({"path": "t.ods"}, base_dir=ods_file(tmp_path, rows).parent)
    assert str(err.value) == (
        f"t.ods, row 1, column 2: the repeat count table:number-columns-repeated is not a count (value {count!r});"
        " expected a positive whole number"
    )


def test_ods_runs_of_spaces_are_bounded(tmp_path):
    rows = row_of(cell('<text:p>a<text:s text:c="99999999999999"/></text:p>'))
    with pytest.raises(InputError) as err:
        read_source_table({"path": "t.ods"}, base_dir=ods_file(tmp_path, rows).parent)
    assert str(err.value) == (
        "t.ods, row 1, column 1: the sheet's runs of spaces (text:s) add up to more than 40,000,000; expected a sheet"
        " of real size"
    )


def test_ods_sheets_hidden_picked_by_name_and_by_index(tmp_path):
    def sheet(name, word, style=""):
        return f'<table:table table:name="{name}"{style}><table:table-row>{cell(f"<text:p>{word}</text:p>")}</table:table-row></table:table>'

    hidden = ' table:style-name="ta2"'
    styles = '<style:style style:name="ta2" style:family="table"><style:table-properties table:display="false"/></style:style>'
    sheets = sheet("Old", "junk", hidden) + sheet("Svar", "x") + sheet("Notes", "note", hidden) + sheet("More", "y")
    base = ods_file(tmp_path, "", styles=styles, sheets=sheets).parent

    def read_sheet(sheet):
        return read_source_table({"path": "t.ods", "sheet": sheet, "header": False}, base_dir=base)

    t = read_sheet(0)
    assert t.rows == [["x"]]
    assert t.messages == ["t.ods: read sheet 'Svar' (2 of 4); hidden sheets not read: ['Old', 'Notes']"]
    assert read_sheet(1).rows == [["y"]] and read_sheet("Notes").rows == [["note"]]
    with pytest.raises(InputError) as err:
        read_sheet(2)
    assert str(err.value) == "t.ods: sheet index 2 does not exist; expected 0 to 1 (visible sheets: ['Svar', 'More'])"
    with pytest.raises(InputError) as err:
        read_sheet("Svar ")
    assert str(err.value) == "t.ods: no sheet named 'Svar '; expected one of ['Old', 'Svar', 'Notes', 'More']"


def test_ods_with_broken_xml_is_one_line(tmp_path):
    path = ods_file(tmp_path, f"<table:table-row>{cell('<text:p>a</text:p>')}</table:table-row>")
    content = zipfile.ZipFile(path).read("content.xml").replace(b"</table:table-row>", b"</table:table-rov>")
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("content.xml", content)
    with pytest.raises(InputError) as err:
        read_source_table({"path": "t.ods"}, base_dir=tmp_path)
    assert str(err.value) == (
        "t.ods: content.xml is not well-formed XML at line 1, column 589; expected an ODS file as a spreadsheet"
        " program saves it"
    )


def test_a_large_ods_is_read_in_bounded_memory(tmp_path):
    """400,000 rows of 4 cells (165 MB of XML, 2.8 MB zipped), read in a fresh process.

    Measured (Linux, Python 3.11): the process grows by 206 MB for the whole table (0.5 KB a row,
    most of it the rows' values), in about 6 s; odfpy's DOM grew it by 434 MB for 40,000 of these
    rows (10.9 KB a row: 4.3 GB for 400,000), in 8 s.
    """
    rows = [["w1", "w2", "r1", "r2"]] + [[f"word{i}", f"other{i}", i % 11, i * 7 % 11] for i in range(400_000)]
    (tmp_path / "big.ods").write_bytes(ods_bytes(rows, "S"))
    del rows
    code = """
import resource, sys
from simgold.io.readers import read_source_table
kib = 1 if sys.platform != "darwin" else 1 / 1024  # ru_maxrss: KiB on Linux, bytes on macOS
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
table = read_source_table({"path": "big.ods"}, base_dir=sys.argv[1])
grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) * kib / 1024
print(len(table.rows), table.rows[-1], int(grown))
"""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    read, grown_mib = proc.stdout.rsplit(" ", 1)
    assert read == "400000 ['word399999', 'other399999', 6, 9]"
    assert int(grown_mib) < 400  # MiB: a tenth of what the DOM needed


def test_a_zip_bomb_is_refused_before_it_is_opened(tmp_path, monkeypatch):
    """A 300 MB shared-strings part of one repeated letter, zipped to 0.3 MB: openpyxl would read it whole."""
    monkeypatch.setattr(openpyxl, "load_workbook", lambda *args, **kwargs: pytest.fail("the workbook was opened"))
    path = tmp_path / "bomb.xlsx"
    with zipfile.ZipFile(io.BytesIO(xlsx_bytes([["w1", "w2", "r1"], ["cat", "dog", 1]], "s"))) as workbook:
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as bomb:
            for member in workbook.infolist():
                bomb.writestr(member, workbook.read(member))
            with bomb.open("xl/sharedStrings.xml", "w") as strings:
                for _ in range(300):
                    strings.write(b"a" * (1 << 20))
    packed = zipfile.ZipFile(path).getinfo("xl/sharedStrings.xml").compress_size
    assert path.stat().st_size < 400_000
    with pytest.raises(InputError) as err:
        read_source_table({"path": "bomb.xlsx"}, base_dir=tmp_path)
    assert str(err.value) == (
        f"bomb.xlsx: the zip member 'xl/sharedStrings.xml' declares 314,572,800 bytes unpacked from {packed:,}"
        f" ({314_572_800 / packed:,.0f} to 1), more than a real spreadsheet holds; nothing was unpacked; expected a"
        " spreadsheet of real size, or the data as CSV/TSV"
    )
