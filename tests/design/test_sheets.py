"""The questionnaire files: what a rater opens (openpyxl reads it back as written), byte-identical
on every write."""

import io
import time

import openpyxl
import pytest

from simgold.design.sheets import AnswerRule, Questionnaire, csv_text, fill_instructions, xlsx_bytes

SHEET = Questionnaire(
    "r01",
    ("position", "word 1", "word 2", "rating"),
    ((1, "cat", "dog", None), (2, "kaffe, sort", "te", None), (3, "sun", "moon", None)),
    ("rating",),
    AnswerRule.whole_numbers(0, 6),
)


def test_the_workbook_holds_instructions_then_the_questions_with_a_frozen_header_and_validation():
    book = openpyxl.load_workbook(io.BytesIO(xlsx_bytes(SHEET, "Rate each pair.\nThank you.", "ratings")))
    assert book.sheetnames == ["instructions", "ratings"]
    assert [c.value for c in book["instructions"]["A"]] == ["Rate each pair.", "Thank you."]
    questions = book["ratings"]
    assert [[c.value for c in row] for row in questions.iter_rows()] == [
        ["position", "word 1", "word 2", "rating"],
        [1, "cat", "dog", None],
        [2, "kaffe, sort", "te", None],
        [3, "sun", "moon", None],
    ]
    assert questions.freeze_panes == "A2" and questions["A1"].font.bold
    (rule,) = questions.data_validations.dataValidation
    assert (rule.type, rule.operator, rule.formula1, rule.formula2) == ("whole", "between", "0", "6")
    assert str(rule.sqref) == "D2:D4" and rule.showErrorMessage
    assert book.properties.created.year == book.properties.modified.year == 2026


def test_the_same_questionnaire_gives_the_same_bytes_a_second_later():
    first = xlsx_bytes(SHEET, "Rate.", "ratings")
    time.sleep(1.1)  # the zip times and document dates would differ by a second
    assert xlsx_bytes(SHEET, "Rate.", "ratings") == first


def test_the_csv_quotes_a_comma_and_leaves_the_answers_blank():
    assert csv_text(SHEET) == 'position,word 1,word 2,rating\n1,cat,dog,\n2,"kaffe, sort",te,\n3,sun,moon,\n'


def test_a_list_rule_accepts_its_choices_only():
    rule = AnswerRule("list", choices=("A", "B", "C", "D")).validation()
    assert (rule.type, rule.formula1) == ("list", '"A,B,C,D"')


def test_an_instructions_template_naming_an_unknown_field_is_refused_with_the_fields_it_can_use():
    with pytest.raises(ValueError, match=r"names \{payment\}; the fields it can use are \{rater\}"):
        fill_instructions("Hi {rater}, you earn {payment}.", {"rater": "r01"})
