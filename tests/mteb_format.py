"""MTEB's result format as the pinned release defines it, copied here by hand (mteb is not a test
dependency: it pulls in torch), to check the files simgold writes against the source, not
against simgold's own copy of it.

From mteb 1.39.7 (the newest 1.x release), ``mteb/load_results/task_results.py``::

    class TaskResult(BaseModel):
        dataset_revision: str
        task_name: str
        mteb_version: str | None
        scores: dict[Split, list[ScoresDict]]      # Split = str; ScoresDict = dict[str, Any]
        evaluation_time: float | None
        kg_co2_emissions: float | None = None

    _validate_scores_dict: "main_score" in scores; hf_subset a str; languages a list

and ``mteb/model_meta.py`` (``ModelMeta.to_dict()``: ``model_dump()`` with ``loader`` by name,
last); languages ``check_language_code``: ISO 639-3, a hyphen, ISO 15924.
"""

from __future__ import annotations

import re

NUMBER = (int, float)
NONE = type(None)

#: TaskResult's fields and the JSON types each accepts (an int is a valid float to pydantic)
TASK_RESULT = {
    "dataset_revision": (str,),
    "task_name": (str,),
    "mteb_version": (str, NONE),
    "scores": (dict,),
    "evaluation_time": (*NUMBER, NONE),
    "kg_co2_emissions": (*NUMBER, NONE),
}
MODEL_META = {
    "name": (str, NONE),
    "revision": (str, NONE),
    "release_date": (str, NONE),
    "languages": (list, NONE),
    "n_parameters": (int, NONE),
    "memory_usage_mb": (*NUMBER, NONE),
    "max_tokens": (*NUMBER, NONE),
    "embed_dim": (int, NONE),
    "license": (str, NONE),
    "open_weights": (bool, NONE),
    "public_training_code": (str, NONE),
    "public_training_data": (str, bool, NONE),
    "framework": (list,),
    "reference": (str, NONE),
    "similarity_fn_name": (str, NONE),
    "use_instructions": (bool, NONE),
    "training_datasets": (dict, NONE),
    "adapted_from": (str, NONE),
    "superseded_by": (str, NONE),
    "is_cross_encoder": (bool, NONE),
    "modalities": (list,),
    "loader": (str, NONE),
}
LANGUAGE = re.compile(r"^[a-z]{3}-[A-Z][a-z]{3}$")


def task_result_problems(data: dict) -> list[str]:
    """What keeps ``data`` from being mteb 1.39.7's TaskResult (empty: nothing)."""
    problems = [f"keys {sorted(data)} are not {sorted(TASK_RESULT)}"] if set(data) != set(TASK_RESULT) else []
    problems += [f"{k}: {type(data[k]).__name__}" for k, types in TASK_RESULT.items() if k in data and
                 (not isinstance(data[k], types) or isinstance(data[k], bool))]  # fmt: skip
    for split, entries in data.get("scores", {}).items():
        if not isinstance(split, str) or not isinstance(entries, list) or not entries:
            problems.append(f"split {split!r}: not a non-empty list")
            continue
        for entry in entries:
            if "main_score" not in entry or not isinstance(entry.get("hf_subset"), str):
                problems.append(f"split {split}: no main_score or hf_subset")
            languages = entry.get("languages")
            if not isinstance(languages, list) or not all(isinstance(x, str) and LANGUAGE.match(x) for x in languages):
                problems.append(f"split {split}: languages {languages!r}")
    return problems


def model_meta_problems(data: dict) -> list[str]:
    """What keeps ``data`` from being mteb 1.39.7's ModelMeta.to_dict() (empty: nothing)."""
    problems = [f"keys {sorted(data)} are not {sorted(MODEL_META)}"] if set(data) != set(MODEL_META) else []
    problems += [f"{k}: {type(data[k]).__name__}" for k, types in MODEL_META.items() if k in data and not isinstance(data[k], types)]
    if data.get("name") is not None and "/" not in data["name"]:
        problems.append(f"name {data['name']!r} is not organisation/model")
    problems += [f"language {x!r}" for x in data.get("languages") or [] if not LANGUAGE.match(x)]
    return problems
