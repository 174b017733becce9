"""A Best-Worst Scaling study's files for the annotation platforms: Label Studio (the tasks to import
and the labeling config **simgold-bws**) and Potato (the instances and the config whose export,
``annotated_instances.tsv``, the cleaning's ``potato`` preset reads).

Both platforms show the tuples the design drew, in the design's item order; neither draws tuples
of its own. What each export holds, and so what the config reads back, is fixed here:

* Label Studio: one task per tuple, ``data`` holding ``item1``..``itemk`` (each ``word1:word2``)
  and ``tuple`` (the design's tuple id). The labeling config shows the k items under the numbers
  1..k and asks two required single choices, ``best`` and ``worst``, whose values are those
  numbers. Its CSV and JSON-MIN exports have one row per annotation: ``id`` (Label Studio's task
  id), the task's data (``item1``.., ``tuple``), ``best``, ``worst`` and ``annotator``.
* Potato (the 1.2 release's ``annotated_instances.tsv``, ``output_annotation_format: tsv``): one
  instance per tuple, its id the tuple id and its text the k items joined by `` | ``; a ``text``
  scheme named ``bws`` with two boxes, ``best`` and ``worst``, for the letters A, B, ... of the
  chosen items. The export's columns: ``user``, ``instance_id``, ``displayed_text``,
  ``bws:::best``, ``bws:::worst``. Potato 2's ``annotation_type: bws`` is not used: it draws its
  own tuples from a pool of items (its ``bws_config``, which its validator requires) and its export
  holds neither the tuple's items nor ``bws:::`` columns.

Every file is text written the same way each time (sorted keys where a format has no order of its
own, ``\\n`` line ends), so the same tuples give the same bytes.

Examples
--------
>>> config = label_studio_config(3)
>>> config.splitlines()[0]
'<View title="simgold-bws">'
>>> [line.strip() for line in config.splitlines() if "<Choices" in line][0]
'<Choices name="best" toName="item1" choice="single-radio" required="true" showInline="true">'
>>> json.loads(label_studio_tasks(["t1"], [["a:b", "c:d", "e:f"]]))[0]["data"]["item3"]
'e:f'
>>> potato_instances(["t1"], [["a:b", "c:d", "e:f"]])
'{"id": "t1", "text": "a:b | c:d | e:f"}\\n'
"""

from __future__ import annotations

import json
from xml.sax.saxutils import quoteattr

import yaml

__all__ = [
    "LABEL_STUDIO_TITLE",
    "POTATO_SCHEME",
    "POTATO_SPLIT",
    "label_studio_config",
    "label_studio_tasks",
    "potato_config",
    "potato_instances",
]

#: the labeling config's title: the ``label_studio`` preset is written for this config
LABEL_STUDIO_TITLE = "simgold-bws"
#: the Potato scheme's name: its boxes are the export's ``bws:::best`` and ``bws:::worst``
POTATO_SCHEME = "bws"
#: what joins a tuple's items in a Potato instance's text (the ``potato`` preset splits on it)
POTATO_SPLIT = " | "
_BEST = "Which pair's two words are the MOST similar in meaning?"
_WORST = "Which pair's two words are the LEAST similar in meaning?"


def label_studio_config(k: int, best: str = _BEST, worst: str = _WORST) -> str:
    """The labeling config **simgold-bws** for k-tuples: the items ``$item1``..``$itemk`` under
    the numbers 1..k, and two required single choices, ``best`` and ``worst``, valued 1..k.

    Parameters
    ----------
    k : int
        The tuples' size.
    best, worst : str
        The two questions.

    Returns
    -------
    str
        The XML, ``\\n`` line ends.
    """
    lines = [f"<View title={quoteattr(LABEL_STUDIO_TITLE)}>"]
    for j in range(1, k + 1):
        lines += [
            '  <View style="display: flex; gap: 1em; align-items: baseline">',
            f'    <Header value="{j}" size="4"/>',
            f'    <Text name="item{j}" value="$item{j}"/>',
            "  </View>",
        ]
    for name, question in (("best", best), ("worst", worst)):
        lines += [
            f"  <Header value={quoteattr(question)}/>",
            f'  <Choices name="{name}" toName="item1" choice="single-radio" required="true" showInline="true">',
            *(f'    <Choice value="{j}"/>' for j in range(1, k + 1)),
            "  </Choices>",
        ]
    return "\n".join(lines + ["</View>"]) + "\n"


def label_studio_tasks(tuple_ids: list[str], items: list[list[str]]) -> str:
    """The tasks to import into Label Studio: one per tuple, ``data`` holding ``item1``.. and the
    tuple's id as ``tuple``.

    Parameters
    ----------
    tuple_ids : list of str
        The tuples' ids, in the order to import.
    items : list of list of str
        Each tuple's items (``word1:word2``), in the order shown.

    Returns
    -------
    str
        A JSON array, two-space indented, ``\\n`` line ends.
    """
    tasks = [
        {"data": {**{f"item{j}": item for j, item in enumerate(row, start=1)}, "tuple": tid}}
        for tid, row in zip(tuple_ids, items)
    ]
    return json.dumps(tasks, ensure_ascii=False, indent=2) + "\n"


def potato_instances(tuple_ids: list[str], items: list[list[str]]) -> str:
    """Potato's data file: one JSON line per tuple, its id the tuple's and its text the items
    joined by :data:`POTATO_SPLIT`.

    Parameters
    ----------
    tuple_ids : list of str
        The tuples' ids.
    items : list of list of str
        Each tuple's items (``word1:word2``), in the order shown (A, B, ...).

    Returns
    -------
    str
        JSON lines.
    """
    rows = [
        json.dumps({"id": tid, "text": POTATO_SPLIT.join(row)}, ensure_ascii=False)
        for tid, row in zip(tuple_ids, items)
    ]
    return "".join(row + "\n" for row in rows)


def potato_config(name: str, k: int, answers_per_tuple: int, per_annotator: int, instructions: str = "") -> str:
    """Potato's config for the instances of :func:`potato_instances` (read from ``data.jsonl``
    beside it): a ``text`` scheme named :data:`POTATO_SCHEME` with the boxes ``best`` and
    ``worst``, its answers written to ``annotation_output/annotated_instances.tsv``. Potato's
    automatic assignment hands each annotator ``per_annotator`` instances, the least answered
    first, until each has ``answers_per_tuple`` annotators (Potato picks who answers what; the
    design's rater assignment is the sheets').

    Parameters
    ----------
    name : str
        The study's name (the page's title).
    k : int
        The tuples' size (the letters A.. the instructions name).
    answers_per_tuple : int
        How many annotators answer each tuple (``labels_per_instance``).
    per_annotator : int
        How many tuples an annotator is given (``instance_per_annotator``: the design's largest load).
    instructions : str, default ""
        A paragraph shown above the boxes.

    Returns
    -------
    str
        YAML, keys in the order written.
    """
    last = chr(ord("A") + k - 1)
    description = (
        (f"{instructions} " if instructions else "")
        + f"The {k} pairs are A to {last}, left to right. "
        + "Type the letter of the most similar pair in 'best' and of the least similar in 'worst'."
    )
    config = {
        "server_name": "potato annotator",
        "annotation_task_name": f"{name} (simgold BWS)",
        "task_dir": ".",
        "output_annotation_dir": "annotation_output/",
        "output_annotation_format": "tsv",
        "annotation_codebook_url": "",
        "data_files": ["data.jsonl"],
        "item_properties": {"id_key": "id", "text_key": "text"},
        "user_config": {"allow_all_users": True, "users": []},
        "automatic_assignment": {
            "on": True,
            "output_filename": "task_assignment.json",
            "sampling_strategy": "random",
            "labels_per_instance": answers_per_tuple,
            "instance_per_annotator": per_annotator,
            "test_question_per_annotator": 0,
            "users": [],
        },
        "alert_time_each_instance": 10_000_000,
        "annotation_schemes": [
            {
                "annotation_type": "text",
                "name": POTATO_SCHEME,
                "description": description,
                "labels": ["best", "worst"],
                "label_requirement": {"required": True},
            }
        ],
        "html_layout": "default",
        "base_html_template": "default",
        "header_file": "default",
        "site_dir": "default",
    }
    return yaml.safe_dump(config, sort_keys=False, allow_unicode=True, width=100)
