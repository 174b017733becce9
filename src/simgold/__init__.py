"""simgold: trustworthy word-similarity gold standards and embedding evaluation.

The notebook API (``simgold.api``; examples in README.md):

* ``simgold.evaluate(model, dataset)``: Spearman, Pearson and Kendall with CIs and OOV shares;
* ``simgold.evaluate_comparisons(model, comparisons)``: the A&G score of a release's comparisons;
* ``simgold.agreement(df, item=, rater=, score=)``: inter-rater agreement of long-format ratings;
* ``simgold.clean(config_or_dataset)``: the canonical tables and the rejects ledger.

The library's layers, each importing only the ones below it (checked by the import-linter
contracts in pyproject.toml and by tests/test_architecture.py):

* ``simgold.cli``, ``simgold.api``: the ``simgold`` command's parser and the notebook API;
* ``simgold.commands``: what the ``simgold`` command does, loaded once a command runs;
* ``simgold.workflow``: which dataset goes through which stage, the Snakemake jobs' glue;
* ``simgold.report``: figures, pages and the archive;
* ``simgold.stages``: one module per stage of the workflow (``workflow/rules/X.smk``);
* ``simgold.io``: config and schema, readers and layouts, embeddings, tables and result paths;
* ``simgold.stats``: ranks and correlations, alpha, bootstrap, dependent correlations, reliability;
* ``simgold.errors``: the errors every layer raises.

``import simgold`` stays cheap (every Snakemake job imports the package): the API and its
dependencies load on first use (PEP 562).
"""

__version__ = "0.1.0"
__all__ = ["agreement", "clean", "evaluate", "evaluate_comparisons", "__version__"]


def __getattr__(name):  # PEP 562: the notebook API (pandas and the stages) loads on first use, not on import
    """The notebook API's functions (``simgold.api``), imported on first use; then kept here.

    Parameters
    ----------
    name : str
        The attribute asked for.

    Returns
    -------
    callable
        ``simgold.api``'s function of that name.
    """
    if name in ("agreement", "clean", "evaluate", "evaluate_comparisons"):
        from simgold import api  # on first use: pandas and the stages

        value = getattr(api, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    """The module's names and the API's, loaded or not (``dir(simgold)``, completion).

    Returns
    -------
    list of str
        The module's globals and ``__all__`` together, sorted.
    """
    return sorted(set(globals()) | set(__all__))
